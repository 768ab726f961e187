package selftest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
)

// resourceInfo is the part of a Resource the checks read.
type resourceInfo struct {
	URI      string          `json:"uri"`
	Name     string          `json:"name"`
	MimeType string          `json:"mimeType"`
	Size     json.RawMessage `json:"size"`
}

// size is the listed size in bytes; ok is false when none is listed, and
// problem says why a listed one is not a byte count.
func (res resourceInfo) size() (n int64, ok bool, problem string) {
	if len(res.Size) == 0 || string(res.Size) == "null" {
		return 0, false, ""
	}
	if err := json.Unmarshal(res.Size, &n); err != nil || n < 0 {
		return 0, false, fmt.Sprintf("listed size %s is not a byte count", textclip.Bytes(string(res.Size), 40))
	}
	return n, true, ""
}

// promptInfo is the part of a Prompt the checks read.
type promptInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Arguments   []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"arguments"`
}

// resourceChecks lists and reads resources when the server offers them.
func (r *runner) resourceChecks() {
	listedCheck(r, "resources", "resource", "resources/list", "resources/read", r.listResources, r.readResources)
}

// promptChecks lists prompts and gets a sample when the server offers
// them.
func (r *runner) promptChecks() {
	listedCheck(r, "prompts", "prompt", "prompts/list", "prompts/get", r.listPrompts, r.getPrompts)
}

// listedCheck runs one feature's list check (resources/list,
// prompts/list) and then the check that uses what it listed, which is
// skipped when the server does not declare the capability or lists
// nothing.
func listedCheck[T any](r *runner, capability, noun, listName, useName string, list func() (outcome, []T), use func([]T) outcome) {
	var listed []T
	var listErr string
	r.check(listName, func() outcome {
		out, items := list()
		listed, listErr = items, out.detail
		return out
	})
	r.check(useName, func() outcome {
		if _, err := r.session(); err != nil {
			return fail("%v", err)
		}
		switch {
		case !r.declares(capability):
			return skip("server does not declare the %s capability", capability)
		case listed == nil:
			return skip("needs the %s list: %s", noun, listErr)
		case len(listed) == 0:
			return skip("server lists no %s", capability)
		}
		return use(listed)
	})
}

// listPages pages through method (resources/list, prompts/list) and
// gathers every page's key array; ok is false, with the failure, when the
// capability is missing, the session is down, or a page has no such array.
func listPages[T any](r *runner, capability, method, key string) (all []T, more bool, failed outcome, ok bool) {
	if !r.declares(capability) {
		return nil, false, skip("server does not declare the %s capability", capability), false
	}
	c, err := r.session()
	if err != nil {
		return nil, false, fail("%v", err), false
	}
	more, err = r.paginate(c, method, cursorParams, func(raw json.RawMessage) (string, error) {
		var page map[string]json.RawMessage
		var items []T
		var next string
		if json.Unmarshal(raw, &page) != nil || json.Unmarshal(page[key], &items) != nil || items == nil {
			return "", fmt.Errorf("%s result has no %q array: %s", method, key, textclip.Bytes(string(raw), 80))
		}
		if cur, found := page["nextCursor"]; found && json.Unmarshal(cur, &next) != nil {
			return "", fmt.Errorf("%s result's nextCursor is not a string: %s", method, textclip.Bytes(string(cur), 80))
		}
		all = append(all, items...)
		return next, nil
	})
	if err != nil {
		return nil, false, fail("%v", err), false
	}
	return all, more, outcome{}, true
}

// listResources pages through resources/list and checks each entry has
// a uri and a name.
func (r *runner) listResources() (outcome, []resourceInfo) {
	all, more, failed, ok := listPages[resourceInfo](r, "resources", "resources/list", "resources")
	if !ok {
		r.resourcesErr = failed.detail
		return failed, nil
	}
	for i, res := range all {
		if res.URI == "" || res.Name == "" {
			r.resourcesErr = "resources/list failed"
			return fail("resource #%d needs a uri and a name, got uri %q name %q", i+1, res.URI, res.Name), nil
		}
	}
	r.resources = all
	skills := len(skillResources(all))
	return pass("%d resources%s, %d of them skill://<path>/%s", len(all), moreNote(more), skills, skillFile), all
}

// moreNote says a list was cut short after maxListPages pages.
func moreNote(more bool) string {
	if !more {
		return ""
	}
	return fmt.Sprintf(" in the first %d pages (not read further)", maxListPages)
}

// readResources reads a sample of the listed resources.
func (r *runner) readResources(listed []resourceInfo) outcome {
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	idx := sampleIndices(len(listed), r.o.Sample)
	var problems []string
	for _, i := range idx {
		uri := listed[i].URI
		m, err := c.call(r.ctx, "resources/read", map[string]any{"uri": uri})
		if err != nil {
			return fail("%s: %v", uri, err)
		}
		if p := readProblem(m); p != "" {
			problems = append(problems, uri+": "+p)
		}
	}
	if len(problems) > 0 {
		return fail("%d of %d reads: %s", len(problems), len(idx), firstProblems(problems))
	}
	return pass("%d of %d resources read", len(idx), len(listed))
}

// readProblem says what is wrong with a resources/read answer, or "".
func readProblem(m *message) string {
	if m.Error != nil {
		return fmt.Sprintf("a listed resource answered %v", m.Error)
	}
	var res struct {
		Contents []struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Contents) == 0 {
		return "result has no non-empty \"contents\" array"
	}
	for i, c := range res.Contents {
		if c.URI == "" || (c.Text == nil) == (c.Blob == nil) {
			return fmt.Sprintf("contents[%d] needs a uri and exactly one of text or blob", i)
		}
	}
	return ""
}

// listPrompts pages through prompts/list and checks the entries' names.
func (r *runner) listPrompts() (outcome, []promptInfo) {
	all, more, failed, ok := listPages[promptInfo](r, "prompts", "prompts/list", "prompts")
	if !ok {
		r.promptsErr = failed.detail
		return failed, nil
	}
	r.promptsErr = "prompts/list failed"
	for i, p := range all {
		if p.Name == "" {
			return fail("prompt #%d has no name", i+1), nil
		}
		for _, a := range p.Arguments {
			if a.Name == "" {
				return fail("prompt %q has an argument without a name", p.Name), nil
			}
		}
	}
	r.prompts = all
	return pass("%d prompts%s%s", len(all), moreNote(more), undescribedNote(all)), all
}

// undescribedNote warns about prompts without a description: a client
// shows the description to pick a prompt, so one without is hard to use,
// though the specification allows it.
func undescribedNote(prompts []promptInfo) string {
	var bare []string
	for _, p := range prompts {
		if strings.TrimSpace(p.Description) == "" {
			bare = append(bare, p.Name)
		}
	}
	if len(bare) == 0 {
		return ""
	}
	return fmt.Sprintf("; warning: %d without a description (%s)", len(bare), orNone(bare))
}

// promptArgValue is the made-up value every required prompt argument
// gets: short and plain, so a prompt that takes free text accepts it.
const promptArgValue = "x"

// getPrompts gets a sample of the listed prompts, each with a string for
// every required argument. A prompt with required arguments may refuse
// the made-up values with -32602; one without must answer.
func (r *runner) getPrompts(listed []promptInfo) outcome {
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	idx := sampleIndices(len(listed), r.o.Sample)
	var problems []string
	for _, i := range idx {
		p := listed[i]
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required {
				args[a.Name] = promptArgValue
			}
		}
		m, err := c.call(r.ctx, "prompts/get", map[string]any{"name": p.Name, "arguments": args})
		if err != nil {
			return fail("%s: %v", p.Name, err)
		}
		if m.Error != nil && m.Error.Code == codeInvalidParams && len(args) > 0 {
			continue
		}
		if problem := promptProblem(m); problem != "" {
			problems = append(problems, p.Name+": "+problem)
		}
	}
	if len(problems) > 0 {
		return fail("%d of %d prompts: %s", len(problems), len(idx), firstProblems(problems))
	}
	return pass("%d of %d prompts answered", len(idx), len(listed))
}

// promptProblem says what is wrong with a prompts/get answer, or "".
func promptProblem(m *message) string {
	if m.Error != nil {
		return fmt.Sprintf("answered %v", m.Error)
	}
	var res struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || res.Messages == nil {
		return "result has no \"messages\" array"
	}
	for i, msg := range res.Messages {
		if msg.Role != "user" && msg.Role != "assistant" {
			return fmt.Sprintf("messages[%d] role is %q, want user or assistant", i, msg.Role)
		}
		if !isJSONObject(msg.Content) {
			return fmt.Sprintf("messages[%d] content is not an object", i)
		}
	}
	return ""
}
