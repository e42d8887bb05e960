// typed decodes JSON bodies into mirrored built-in types with sigs.k8s.io/json's strict decoder,
// as the apiserver's JSON serializer does, and prints what it saw: one JSON line in, one out.
//
// In:  {"id": "...", "type": "ConfigMap"|"Pod", "body": <JSON>}
// Out: {"id": "...", "error": "...", "strict": ["..."], "encoded": <JSON as Go writes it back>}
package main

import (
	"bufio"
	"encoding/json"
	"os"

	kjson "sigs.k8s.io/json"

	v1 "goref/typed/v1"
)

type input struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Body json.RawMessage `json:"body"`
}

type output struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Body    json.RawMessage `json:"body"`
	Error   string          `json:"error,omitempty"`
	Strict  []string        `json:"strict,omitempty"`
	Encoded json.RawMessage `json:"encoded,omitempty"`
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	writer := json.NewEncoder(os.Stdout)
	writer.SetEscapeHTML(false)
	for scanner.Scan() {
		var in input
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			panic(err)
		}
		var into interface{}
		switch in.Type {
		case "ConfigMap":
			into = &v1.ConfigMap{}
		case "Pod":
			into = &v1.Pod{}
		default:
			panic("unknown type " + in.Type)
		}
		out := output{ID: in.ID, Type: in.Type, Body: in.Body}
		strict, err := kjson.UnmarshalStrict(in.Body, into)
		if err != nil {
			out.Error = err.Error()
		} else {
			for _, e := range strict {
				out.Strict = append(out.Strict, e.Error())
			}
			encoded, err := json.Marshal(into)
			if err != nil {
				panic(err)
			}
			out.Encoded = encoded
		}
		if err := writer.Encode(out); err != nil {
			panic(err)
		}
	}
}
