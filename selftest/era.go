package selftest

import (
	"encoding/json"
	"errors"
	"fmt"
)

// wire is a session and the protocol era its requests are sent in, so
// one check body can run on the legacy session and on the stateless
// 2026-07-28 one (docs/selftest.md §6).
type wire struct {
	c      *conn
	modern bool
}

// cachedMethods are the methods whose modern results carry ttlMs and
// cacheScope (docs/protocol.md §1); other modern results carry only
// resultType.
var cachedMethods = map[string]bool{
	"resources/list":           true,
	"resources/read":           true,
	"resources/templates/list": true,
	"skills/list":              true,
	"skills/get":               true,
}

// params is p as sent in w's era: a modern request carries the required
// _meta keys, a legacy one p alone (nil stays absent).
func (w wire) params(p map[string]any) map[string]any {
	if w.modern {
		return modernParams(modernRev, p)
	}
	return p
}

// request sends method in w's era. A result whose era markers are wrong
// (a modern one without resultType or cache hints, a legacy one with
// resultType) comes back as an error, so every check that reads it
// fails with what is wrong.
func (r *runner) request(w wire, method string, p map[string]any) (json.RawMessage, *rpcError, error) {
	m, err := w.c.call(r.ctx, method, w.params(p))
	if err != nil {
		return nil, nil, err
	}
	if m.Error != nil {
		return nil, m.Error, nil
	}
	if problem := eraProblem(w.modern, method, m.Result); problem != "" {
		return nil, nil, errors.New(problem)
	}
	return m.Result, nil, nil
}

// eraProblem says what is wrong with a result's era markers, or "".
func eraProblem(modern bool, method string, raw json.RawMessage) string {
	var res struct {
		ResultType *string         `json:"resultType"`
		TTLMs      json.RawMessage `json:"ttlMs"`
		CacheScope string          `json:"cacheScope"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Sprintf("%s result is not a JSON object: %s", method, orAbsent(raw))
	}
	if !modern {
		if res.ResultType != nil {
			return fmt.Sprintf("%s result on a legacy session carries resultType %q; only 2026-07-28 results do", method, *res.ResultType)
		}
		return ""
	}
	if res.ResultType == nil || *res.ResultType != "complete" {
		got := "none"
		if res.ResultType != nil {
			got = fmt.Sprintf("%q", *res.ResultType)
		}
		return fmt.Sprintf("%s result as 2026-07-28 needs resultType \"complete\", got %s", method, got)
	}
	if cachedMethods[method] {
		if p := cacheProblems(res.TTLMs, res.CacheScope); len(p) > 0 {
			return fmt.Sprintf("%s result as 2026-07-28: %s", method, p[0])
		}
	}
	return ""
}

// paginateIn pages through method in w's era with extra params on every
// page, checking each page's era markers before take reads it.
func (r *runner) paginateIn(w wire, method string, extra map[string]any, take func(json.RawMessage) (string, error)) (bool, error) {
	return r.paginate(w.c, method, func(cursor string) map[string]any {
		p := map[string]any{}
		for k, v := range extra {
			p[k] = v
		}
		if cursor != "" {
			p["cursor"] = cursor
		}
		if len(p) == 0 {
			p = nil
		}
		return w.params(p)
	}, func(raw json.RawMessage) (string, error) {
		if problem := eraProblem(w.modern, method, raw); problem != "" {
			return "", errors.New(problem)
		}
		return take(raw)
	})
}
