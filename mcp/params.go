package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// bind decodes a request's params into dst, a pointer to a struct whose
// fields name their member with a json tag and may carry
//
//	param:"required"   the member must be present and not null
//	desc:"…"           what the member is, for the error (default " as <kind>")
//
// Every method decodes its params through bind, so a client gets the same
// -32602 wording whatever it got wrong, wherever (docs/protocol.md §3):
// "Invalid params: <method> needs params.<name><desc>" for a required
// member that is missing or of the wrong kind, "Invalid params:
// params.<name> must be <kind>" for an optional one. A member of kind
// json.RawMessage is taken as is; tag it kind:"object" to require an
// object.
func bind(c *call, dst any) error {
	rv := reflect.ValueOf(dst).Elem()
	for _, f := range fieldsOf(rv.Type()) {
		raw, present := c.params[f.name]
		if present && string(raw) == "null" {
			present = false
		}
		if !present {
			if f.required {
				return f.missing(c.method)
			}
			continue
		}
		fv := rv.Field(f.index)
		if f.raw {
			if f.kind == "an object" && jsonKind(raw) != "object" {
				return f.wrong(c.method)
			}
			fv.SetBytes(raw)
			continue
		}
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			// A member of the right kind with a wrong value inside
			// ({"argument": {"value": 5}}) is named down to that value:
			// "needs params.argument, an object {name, value}" said to a
			// client that sent one left it guessing.
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" && jsonKind(raw) == "object" {
				return errorf(codeInvalidParams, "Invalid params: params.%s.%s must be %s, got %s", f.name, te.Field, kindOf(te.Type), te.Value)
			}
			return f.wrong(c.method)
		}
	}
	return nil
}

// paramField is one bindable struct field.
type paramField struct {
	index    int
	name     string
	required bool
	desc     string
	kind     string // "a string", "an object", … for messages
	raw      bool   // json.RawMessage: kept as sent
}

func (f paramField) missing(method string) error {
	return errorf(codeInvalidParams, "Invalid params: %s needs params.%s%s", method, f.name, f.desc)
}

func (f paramField) wrong(method string) error {
	if f.required {
		return f.missing(method)
	}
	return errorf(codeInvalidParams, "Invalid params: params.%s must be %s", f.name, f.kind)
}

var paramFields sync.Map // reflect.Type -> []paramField

func fieldsOf(t reflect.Type) []paramField {
	if fs, ok := paramFields.Load(t); ok {
		return fs.([]paramField)
	}
	var fs []paramField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		f := paramField{index: i, name: name, required: sf.Tag.Get("param") == "required", kind: kindOf(sf.Type)}
		if sf.Type == reflect.TypeOf(json.RawMessage(nil)) {
			f.raw = true
			if sf.Tag.Get("kind") == "object" {
				f.kind = "an object"
			}
		}
		f.desc = sf.Tag.Get("desc")
		if f.desc == "" {
			f.desc = " as " + f.kind
		}
		fs = append(fs, f)
	}
	paramFields.Store(t, fs)
	return fs
}

func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Map:
		if t.Elem().Kind() == reflect.String {
			return "an object of string values"
		}
		return "an object"
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "any JSON value"
		}
		return "an array"
	}
	return fmt.Sprintf("a %s", t.Kind())
}

// bindAgent decodes the call's params into dst (bind) and takes its agent
// generation: the start of every handler that reads the agent.
func (c *call) bindAgent(ctx context.Context, dst any) (*generation, error) {
	if err := bind(c, dst); err != nil {
		return nil, err
	}
	return c.generation(ctx)
}
