package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/driplab/drip/record"
)

// DefaultLabels names runs by their file names, or by their paths when two
// files share a name.
func DefaultLabels(paths []string) []string {
	labels := make([]string, len(paths))
	seen := map[string]int{}
	for i, p := range paths {
		labels[i] = filepath.Base(p)
		seen[labels[i]]++
	}
	for i, p := range paths {
		if seen[labels[i]] > 1 {
			labels[i] = p
		}
	}
	return labels
}

// NotRecordedGroup is the group of records that have no value for the key.
const NotRecordedGroup = "(not recorded)"

// GroupBy pools the records of every input and splits them by the value of
// key, one input per value. The key is "host", a label the run was given ("region" or
// "labels.region"), or any record field, nested ones by a dotted path
// ("workload.concurrency"). Groups are in the order of their values,
// numeric when every value is a number, so the first is the baseline.
// Records without a value form a group of their own, last.
func GroupBy(inputs []Input, key string) ([]Input, error) {
	groups := map[string][]*record.Record{}
	found := false
	for _, in := range inputs {
		for _, r := range in.Records {
			v, ok, err := FieldOf(r, key)
			if err != nil {
				return nil, err
			}
			found = found || ok
			if !ok {
				v = NotRecordedGroup
			}
			groups[v] = append(groups[v], r)
		}
	}
	if !found {
		return nil, fmt.Errorf("--by %s: no record has that field or label (try host, prompt_id, model, target, status, or a --label key)", key)
	}
	values := sortedValues(groups)
	if len(values) < 2 {
		return nil, fmt.Errorf("--by %s: every record has the same value (%s): nothing to compare", key, values[0])
	}
	out := make([]Input, len(values))
	for i, v := range values {
		src := make([]string, 0, len(inputs))
		for _, in := range inputs {
			src = append(src, in.Source)
		}
		out[i] = Input{Label: key + "=" + v, Source: strings.Join(src, ", "), Records: groups[v]}
	}
	return out, nil
}

// sortedValues orders group values, numerically when they all are
// numbers, else as text, and the not-recorded group last.
func sortedValues(groups map[string][]*record.Record) []string {
	var values []string
	for v := range maps.Keys(groups) {
		if v != NotRecordedGroup {
			values = append(values, v)
		}
	}
	numeric := true
	for _, v := range values {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
		}
	}
	slices.SortFunc(values, func(a, b string) int {
		if numeric {
			x, _ := strconv.ParseFloat(a, 64)
			y, _ := strconv.ParseFloat(b, 64)
			if x != y {
				if x < y {
					return -1
				}
				return 1
			}
		}
		return strings.Compare(a, b)
	})
	if _, ok := groups[NotRecordedGroup]; ok {
		values = append(values, NotRecordedGroup)
	}
	return values
}

// FieldOf is a record's value for a --by key, as text, and false when the
// record has none. A key that names no field of the record but one of its labels
// reads the label.
func FieldOf(r *record.Record, key string) (string, bool, error) {
	switch key {
	case "host":
		return r.Host, r.Host != "", nil
	case "prompt_id":
		return r.PromptID, true, nil
	}
	head := *r
	head.Frames, head.Stalls, head.Request = nil, nil, nil
	b, err := json.Marshal(&head)
	if err != nil {
		return "", false, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "", false, err
	}
	v, ok := walk(m, strings.Split(key, "."))
	if !ok {
		l, has := r.Labels[key]
		return l, has, nil
	}
	switch x := v.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, true, nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true, nil
	case bool:
		return strconv.FormatBool(x), true, nil
	}
	return "", false, fmt.Errorf("--by %s: not a single value (an object or a list); name a field inside it with a dotted path", key)
}

func walk(m map[string]any, path []string) (any, bool) {
	v, ok := m[path[0]]
	if !ok || len(path) == 1 {
		return v, ok
	}
	sub, isMap := v.(map[string]any)
	if !isMap {
		return nil, false
	}
	return walk(sub, path[1:])
}
