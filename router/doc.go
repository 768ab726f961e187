// Package router scores request text against an agent's skills with a bleve
// index. It has two modes: Spec, exactly the agent3md/1 route definition
// (the compatibility contract), and Ranked, which lifts phrase matching to
// stems, breaks ties by relevance and falls back to relaxed matches on the
// other fields. It owns the index's mapping, its on-disk cache and its
// lifecycle.
//
// It does not read agent files: callers hand it []Skill.
package router
