package export

// PlainLinks replaces each [[z=N|text]] link in s with its text, and each
// [[z=N]] with the name skillName gives N; a link to nothing named stays
// as written. It is how a description reads as prose: in a SKILL.md, and
// in the CLI's text output for people (loader.WriteSkillList).
func PlainLinks(s string, skillName func(z float64) (string, bool)) string {
	return plainLinks(s, skillName)
}
