package jsonpatch

// This file is not part of evanphx/json-patch: the harness copies it into the library's package
// at build time. lazyNode.equal walks objects in Go's random map order and stops at the first
// member that is unequal or panics, so a `test` can fail on one run and panic on another. These
// functions compute every outcome some order can give, using the library's own nodes, parsing and
// comparisons; only the loop order is enumerated. Any member can come first in a Go map
// iteration, so an object comparison can give each outcome one of its members can give.

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pkg/errors"
)

// Outcome bits for a comparison or a test operation.
const (
	OutcomeTrue = 1 << iota
	OutcomeFalse
	OutcomePanic
)

// equalOutcomes mirrors lazyNode.equal, branch for branch, returning the set of possible results.
// A nil dereference in equal is OutcomePanic here.
func (n *lazyNode) equalOutcomes(o *lazyNode) int {
	if n == nil {
		return OutcomePanic
	}
	if n.which == eRaw {
		if !n.tryDoc() && !n.tryAry() {
			if o == nil {
				return OutcomePanic
			}
			if o.which != eRaw {
				return OutcomeFalse
			}
			if bytes.Equal(n.compact(), o.compact()) {
				return OutcomeTrue
			}
			return OutcomeFalse
		}
	}

	if n.which == eDoc {
		if o == nil {
			return OutcomePanic
		}
		if o.which == eRaw {
			if !o.tryDoc() {
				return OutcomeFalse
			}
		}
		if o.which != eDoc {
			return OutcomeFalse
		}
		if len(n.doc) != len(o.doc) {
			return OutcomeFalse
		}
		possible := 0
		for k, v := range n.doc {
			ov, ok := o.doc[k]
			switch {
			case !ok, (v == nil) != (ov == nil):
				possible |= OutcomeFalse
			case v == nil && ov == nil:
			default:
				possible |= v.equalOutcomes(ov) &^ OutcomeTrue
			}
		}
		if possible == 0 {
			return OutcomeTrue
		}
		return possible
	}

	if o == nil {
		return OutcomePanic
	}
	if o.which != eAry && !o.tryAry() {
		return OutcomeFalse
	}
	if len(n.ary) != len(o.ary) {
		return OutcomeFalse
	}
	for idx, val := range n.ary {
		if r := val.equalOutcomes(o.ary[idx]); r != OutcomeTrue {
			return r
		}
	}
	return OutcomeTrue
}

// testOutcomes mirrors Patch.test; an error other than a failed comparison is reported as err.
func (p Patch) testOutcomes(doc *container, op Operation) (possible int, err error) {
	path, err := op.Path()
	if err != nil {
		return 0, err
	}
	if path == "" {
		var self lazyNode
		switch sv := (*doc).(type) {
		case *partialDoc:
			self.doc = *sv
			self.which = eDoc
		case *partialArray:
			self.ary = *sv
			self.which = eAry
		}
		return self.equalOutcomes(op.value()), nil
	}
	con, key := findObject(doc, path)
	if con == nil {
		return 0, fmt.Errorf("missing path %s", path)
	}
	val, err := con.get(key)
	if err != nil {
		return 0, err
	}
	if val == nil {
		switch v := op.value(); {
		case v == nil:
			return OutcomePanic, nil
		case v.raw == nil:
			return OutcomeTrue, nil
		}
		return OutcomeFalse, nil
	} else if op.value() == nil {
		return OutcomeFalse, nil
	}
	return val.equalOutcomes(op.value()), nil
}

// TestOutcomes runs the patch like Apply until the first test operation whose result is not
// certain to pass, and returns its possible outcomes and the error text a failure gives. It
// returns 0 when no such test is reached (another operation fails first, or all pass).
func (p Patch) TestOutcomes(doc []byte) (possible int, failure string) {
	if len(doc) == 0 {
		return 0, ""
	}
	var pd container
	if doc[0] == '[' {
		pd = &partialArray{}
	} else {
		pd = &partialDoc{}
	}
	if err := json.Unmarshal(doc, pd); err != nil {
		return 0, ""
	}
	var accumulatedCopySize int64
	for _, op := range p {
		var err error
		switch op.Kind() {
		case "add":
			err = p.add(&pd, op)
		case "remove":
			err = p.remove(&pd, op)
		case "replace":
			err = p.replace(&pd, op)
		case "move":
			err = p.move(&pd, op)
		case "test":
			outcomes, testErr := p.testOutcomes(&pd, op)
			if testErr != nil || outcomes != OutcomeTrue {
				path, _ := op.Path()
				return outcomes, errors.Wrapf(ErrTestFailed, "testing value %s failed", path).Error()
			}
			err = p.test(&pd, op)
		case "copy":
			err = p.copy(&pd, op, &accumulatedCopySize)
		default:
			err = fmt.Errorf("Unexpected kind: %s", op.Kind())
		}
		if err != nil {
			return 0, ""
		}
	}
	return 0, ""
}
