// Package handlers holds the apiserver's JSON patch pre-decode under the apiserver's package name,
// because decode errors name the Go type: `json: cannot unmarshal number into Go value of type
// handlers.jsonPatchOp` (k8s.io/apiserver pkg/endpoints/handlers/patch.go, applyJSPatch).
package handlers

import kjson "sigs.k8s.io/json"

// jsonPatchOp is the apiserver's struct for the strict pre-decode, field for field.
type jsonPatchOp struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	From  string      `json:"from"`
	Value interface{} `json:"value"`
}

// PredecodeJSONPatch is kjson.UnmarshalStrict(body, &[]jsonPatchOp): the strict errors (unknown and
// duplicate members), the number of operations, or the decode error the apiserver answers with 400.
func PredecodeJSONPatch(body []byte) (strictErrors []error, count int, err error) {
	var ops []jsonPatchOp
	strictErrors, err = kjson.UnmarshalStrict(body, &ops)
	return strictErrors, len(ops), err
}
