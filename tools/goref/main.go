// Command goref computes, for JSON-lines input cases, what kube-apiserver computes when it stores a
// custom resource and when it applies a JSON patch or a merge patch to one, so that fakeapi can be
// checked against recorded Go behaviour byte for byte.
//
// It reproduces these steps of k8s.io/apiserver (pkg/endpoints/handlers/patch.go, release-1.34):
//   - runtime.Encode of the stored object: kjson.UnmarshalCaseSensitivePreserveInts into interface{},
//     then json.NewEncoder(w).Encode (sorted keys, HTML escaping, trailing newline);
//   - applyJSPatch for JSON patch: the strict pre-decode into []jsonPatchOp, the 10000-operation
//     limit, jsonpatch.DecodePatch and Patch.Apply (evanphx/json-patch v4.12.0);
//   - applyJSPatch for merge patch: the strict pre-decode into a map, then jsonpatch.MergePatch;
//   - the decode of the patched bytes back into an object and its encoding as the stored value.
//
// The apiserver is built with Go >= 1.22, whose encoder writes the bytes 0x08 and 0x0c as \b and
// \f; older Go writes \u0008 and \u000c. fixShortEscapes rewrites this encoder's output accordingly.
// (The json-patch library's own output is built against a patched encoder instead, because raw
// patch text passes through it verbatim and a scan could not tell the two apart.)
//
// Where Go's random map order makes a test fail on one run and panic on another, every possible
// outcome is recorded (applyJSONPatch).
//
// Input, one JSON object a line: {"id","family","kind","doc","patch"}; kind is encode, json-patch,
// merge-patch or json-patch-raw (Apply to doc as given, library level). A byte field is a JSON
// string when it is valid UTF-8, else {"base64": "..."}. Output: the same record with the results
// appended, in a fixed field order (see tests/conformance/README.md).
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"goref/handlers"

	jsonpatch "github.com/evanphx/json-patch"
	kjson "sigs.k8s.io/json"
)

// maxJSONPatchOperations is the apiserver's limit (handlers/patch.go).
const maxJSONPatchOperations = 10000

// orderRepeats is how often a failed test or a panic is re-run to cross-check the analysis.
const orderRepeats = 32

// nilDereference is the text of every panic json-patch v4.12.0 can raise in Apply.
const nilDereference = "runtime error: invalid memory address or nil pointer dereference"

// jsonPatchCopyLimit is JSONPatchMaxCopyBytes, which the apiserver installs as
// jsonpatch.AccumulatedCopySizeLimit (pkg/server/config.go).
const jsonPatchCopyLimit = 3 * 1024 * 1024

// Bytes is a byte field: a JSON string when valid UTF-8, otherwise {"base64": "..."}.
type Bytes []byte

func (b Bytes) MarshalJSON() ([]byte, error) {
	if utf8.Valid(b) {
		return marshalNoHTML(string(b))
	}
	return marshalNoHTML(map[string]string{"base64": base64.StdEncoding.EncodeToString(b)})
}

func (b *Bytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*b = Bytes(s)
		return nil
	}
	var wrapped struct {
		Base64 string `json:"base64"`
	}
	if err := json.Unmarshal(data, &wrapped); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(wrapped.Base64)
	*b = raw
	return err
}

// Apply is the outcome of Patch.Apply or MergePatch: one of OK, Error, Panic is set, or both
// Error and Panic when the outcome depends on map iteration order.
type Apply struct {
	OK    *Bytes `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
	Panic string `json:"panic,omitempty"`
	// Nondeterministic: both Error and Panic happen, depending on Go's map iteration order.
	Nondeterministic bool `json:"nondeterministic,omitempty"`
}

// input is the part of a line the harness reads; any recorded results on it are ignored.
type input struct {
	ID     string `json:"id"`
	Family string `json:"family"`
	Kind   string `json:"kind"`
	Doc    *Bytes `json:"doc"`
	Patch  *Bytes `json:"patch"`
}

// Record is one case with its results; the field order is the output order.
type Record struct {
	ID     string `json:"id"`
	Family string `json:"family"`
	Kind   string `json:"kind"`
	Doc    *Bytes `json:"doc,omitempty"`
	Patch  *Bytes `json:"patch,omitempty"`

	DecodeError      string   `json:"decode_error,omitempty"`
	Current          *Bytes   `json:"current,omitempty"`
	PredecodeError   string   `json:"predecode_error,omitempty"`
	StrictErrors     []string `json:"strict_errors,omitempty"`
	OpCount          *int     `json:"op_count,omitempty"`
	DecodePatchError string   `json:"decode_patch_error,omitempty"`
	Apply            *Apply   `json:"apply,omitempty"`
	Stored           *Bytes   `json:"stored,omitempty"`
	StoredError      string   `json:"stored_error,omitempty"`
}

func marshalNoHTML(v interface{}) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func bytesPtr(b []byte) *Bytes {
	v := Bytes(b)
	return &v
}

// fixShortEscapes rewrites \u0008 and \u000c to \b and \f in Go encoder output, as Go >= 1.22
// writes them. It walks the escapes so that an escaped backslash followed by "u0008" is kept.
func fixShortEscapes(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		if in[i] != '\\' || i+1 >= len(in) {
			out = append(out, in[i])
			continue
		}
		if in[i+1] == 'u' && i+6 <= len(in) {
			switch string(in[i+2 : i+6]) {
			case "0008":
				out = append(out, '\\', 'b')
				i += 5
				continue
			case "000c":
				out = append(out, '\\', 'f')
				i += 5
				continue
			}
		}
		out = append(out, in[i], in[i+1])
		i++
	}
	return out
}

// encodeStored is runtime.Encode of an unstructured object: kjson decode, then Go's encoder.
func encodeStored(doc []byte) (stored []byte, value interface{}, err error) {
	if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &value); err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(value); err != nil {
		return nil, nil, err
	}
	return fixShortEscapes(buf.Bytes()), value, nil
}

// guarded runs f and turns a panic into Apply.Panic, as the apiserver's panic filter would.
func guarded(f func() ([]byte, error)) (result *Apply) {
	defer func() {
		if r := recover(); r != nil {
			result = &Apply{Panic: fmt.Sprint(r)}
		}
	}()
	out, err := f()
	if err != nil {
		return &Apply{Error: err.Error()}
	}
	return &Apply{OK: bytesPtr(out)}
}

// store decodes the patched bytes into an object and encodes it as the apiserver would store it.
func store(rec *Record) {
	if rec.Apply.OK == nil {
		return
	}
	stored, value, err := encodeStored(*rec.Apply.OK)
	switch {
	case err != nil:
		rec.StoredError = err.Error()
	case !isObject(value):
		rec.StoredError = fmt.Sprintf("not an object: %T", value)
	default:
		rec.Stored = bytesPtr(stored)
	}
}

func isObject(v interface{}) bool {
	_, ok := v.(map[string]interface{})
	return ok
}

func strictTexts(errs []error) []string {
	texts := make([]string, 0, len(errs))
	for _, e := range errs {
		texts = append(texts, e.Error())
	}
	return texts
}

func runEncode(rec *Record) {
	stored, _, err := encodeStored(*rec.Doc)
	if err != nil {
		rec.DecodeError = err.Error()
		return
	}
	rec.Stored = bytesPtr(stored)
}

// current is runtime.Encode of the stored object; false when the doc itself does not decode.
func current(rec *Record) bool {
	cur, _, err := encodeStored(*rec.Doc)
	if err != nil {
		rec.DecodeError = err.Error()
		return false
	}
	rec.Current = bytesPtr(cur)
	return true
}

func runJSONPatch(rec *Record) {
	if !current(rec) {
		return
	}
	strict, count, err := handlers.PredecodeJSONPatch(*rec.Patch)
	if err != nil {
		rec.PredecodeError = err.Error()
		return
	}
	rec.StrictErrors = strictTexts(strict)
	rec.OpCount = &count
	if count > maxJSONPatchOperations {
		return
	}
	applyJSONPatch(rec, *rec.Current)
	store(rec)
}

// applyJSONPatch runs Patch.Apply. lazyNode.equal walks objects in Go's random map order, so a
// test whose value differs in one member and holds a null array element in another fails on some
// runs and panics on others. When a run ends in a failed test or a panic, Patch.TestOutcomes (an
// exact, order-independent analysis) says which outcomes are possible; all of them are recorded.
// Repeated real runs must agree with it, or the harness stops.
func applyJSONPatch(rec *Record, doc []byte) {
	if _, err := jsonpatch.DecodePatch(*rec.Patch); err != nil {
		rec.DecodePatchError = err.Error()
		return
	}
	once := func() *Apply {
		patch, _ := jsonpatch.DecodePatch(*rec.Patch)
		return guarded(func() ([]byte, error) { return patch.Apply(doc) })
	}
	first := once()
	rec.Apply = first
	if first.Panic == "" && !strings.HasSuffix(first.Error, jsonpatch.ErrTestFailed.Error()) {
		return
	}
	possible, failure := testOutcomes(*rec.Patch, doc)
	for i := 0; i <= orderRepeats; i++ {
		run := first
		if i > 0 {
			run = once()
		}
		if !within(run, possible, failure) {
			fmt.Fprintf(os.Stderr, "goref: case %s: a run gave %+v, outside the analysed outcomes %b (%q)\n",
				rec.ID, *run, possible, failure)
			os.Exit(2)
		}
	}
	rec.Apply = &Apply{}
	if possible&jsonpatch.OutcomeFalse != 0 {
		rec.Apply.Error = failure
	}
	if possible&jsonpatch.OutcomePanic != 0 {
		rec.Apply.Panic = nilDereference
	}
	rec.Apply.Nondeterministic = rec.Apply.Error != "" && rec.Apply.Panic != ""
}

// within says whether a real run's outcome is one of the analysed ones.
func within(run *Apply, possible int, failure string) bool {
	if run.Panic != "" {
		return possible&jsonpatch.OutcomePanic != 0 && run.Panic == nilDereference
	}
	return possible&jsonpatch.OutcomeFalse != 0 && run.Error == failure
}

// testOutcomes is Patch.TestOutcomes; a panic there comes from an operation before any test that
// panics whatever the order (such as a path through a node added as null).
func testOutcomes(patchText, doc []byte) (possible int, failure string) {
	defer func() {
		if r := recover(); r != nil {
			possible, failure = jsonpatch.OutcomePanic, ""
		}
	}()
	patch, _ := jsonpatch.DecodePatch(patchText)
	return patch.TestOutcomes(doc)
}

func runMergePatch(rec *Record) {
	if !current(rec) {
		return
	}
	strict, err := kjson.UnmarshalStrict(*rec.Patch, &map[string]interface{}{})
	if err != nil {
		rec.PredecodeError = err.Error()
		return
	}
	rec.StrictErrors = strictTexts(strict)
	cur := *rec.Current
	rec.Apply = guarded(func() ([]byte, error) { return jsonpatch.MergePatch(cur, *rec.Patch) })
	store(rec)
}

func run(rec *Record) error {
	if rec.Doc == nil {
		rec.Doc = bytesPtr(nil)
	}
	if rec.Patch == nil && rec.Kind != "encode" {
		rec.Patch = bytesPtr(nil)
	}
	switch rec.Kind {
	case "encode":
		runEncode(rec)
	case "json-patch":
		runJSONPatch(rec)
	case "merge-patch":
		runMergePatch(rec)
	case "json-patch-raw":
		applyJSONPatch(rec, *rec.Doc)
	default:
		return fmt.Errorf("case %s: unknown kind %q", rec.ID, rec.Kind)
	}
	return nil
}

func main() {
	jsonpatch.AccumulatedCopySizeLimit = jsonPatchCopyLimit
	lines := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for {
		line, err := lines.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var in input
			if err := json.Unmarshal(line, &in); err != nil {
				fmt.Fprintln(os.Stderr, "goref: bad input line:", err)
				os.Exit(2)
			}
			rec := Record{ID: in.ID, Family: in.Family, Kind: in.Kind, Doc: in.Doc, Patch: in.Patch}
			if err := run(&rec); err != nil {
				fmt.Fprintln(os.Stderr, "goref:", err)
				os.Exit(2)
			}
			encoded, err := marshalNoHTML(&rec)
			if err != nil {
				fmt.Fprintln(os.Stderr, "goref: case", rec.ID, err)
				os.Exit(2)
			}
			out.Write(encoded)
			out.WriteByte('\n')
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "goref:", err)
			os.Exit(2)
		}
	}
}
