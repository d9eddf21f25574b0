package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// DescribeIDs prints ascending IDs compactly for messages: runs as "1-8",
// the rest separated by commas, elided in the middle beyond ten items
// ("1, 3, 5, 7, 9, 11, 13, 15, ..., 41"); "none" when empty.
func DescribeIDs(ids []NodeID) string {
	if len(ids) == 0 {
		return "none"
	}
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		switch j - i {
		case 0:
			parts = append(parts, fmt.Sprint(ids[i]))
		case 1:
			parts = append(parts, fmt.Sprint(ids[i]), fmt.Sprint(ids[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	if len(parts) > 10 {
		parts = append(parts[:8:8], "...", parts[len(parts)-1])
	}
	return strings.Join(parts, ", ")
}

const memberSetWant = "all, one or a list of node IDs"

// MemberSet reads a set of members (who initiates, who detects): "all"
// (also the default), "one" (the lowest ID) or a list of member IDs (a
// single ID is a list of one), returned ascending. Errors name the key:
// an unknown ID, one listed twice, an empty list, anything else.
func (r *ParamReader) MemberSet(key string, members []NodeID) []NodeID {
	v, ok := r.Any(key)
	if !ok {
		return slices.Clone(members)
	}
	var raw []any
	switch x := v.(type) {
	case string:
		switch x {
		case "all":
			return slices.Clone(members)
		case "one":
			return slices.Clone(members[:min(1, len(members))])
		}
		r.Reject(key, fmt.Sprintf("%q", x), memberSetWant)
		return slices.Clone(members)
	case []any:
		raw = x
	case []int:
		for _, i := range x {
			raw = append(raw, i)
		}
	case []NodeID:
		for _, i := range x {
			raw = append(raw, i)
		}
	default:
		if _, isID := NodeIDOf(v); !isID {
			r.Reject(key, v, memberSetWant)
			return slices.Clone(members)
		}
		raw = []any{v}
	}
	if len(raw) == 0 {
		r.Reject(key, "an empty list", memberSetWant+" (at least one)")
		return slices.Clone(members)
	}
	ids := make([]NodeID, 0, len(raw))
	for _, e := range raw {
		id, isID := NodeIDOf(e)
		if !isID {
			r.Reject(key, v, memberSetWant)
			return slices.Clone(members)
		}
		if _, member := slices.BinarySearch(members, id); !member {
			r.Reject(key, fmt.Sprintf("node %d", id), "a member (members: "+DescribeIDs(members)+")")
			return slices.Clone(members)
		}
		if slices.Contains(ids, id) {
			r.Reject(key, fmt.Sprintf("node %d", id), "listed once (it appears twice)")
			return slices.Clone(members)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
