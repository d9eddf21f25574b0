package judge

import "testing"

// TestCombined: the check's verdict line names what was violated, what
// holds, what does not apply and what was not judged, in Exit's order of
// words.
func TestCombined(t *testing.T) {
	cases := []struct {
		ps         []Judged
		word, text string
	}{
		{[]Judged{{"a", Valid, ""}, {"b", Valid, NotApplicable + ": no leaders"}}, Valid,
			"judged and holding: a; not applicable: b"},
		{[]Judged{{"a", Unknown, "no epoch"}, {"b", Invalid, ""}, {"c", Valid, ""}}, Invalid,
			"violated: b; judged and holding: c; not judged: a unknown: no epoch"},
		{[]Judged{{"a", Stalled, "round 3"}, {"b", Unknown, ""}}, Stalled,
			"not judged: a stalled: round 3; b unknown"},
		{[]Judged{{"b", Valid, NotApplicable}}, Valid, "not applicable: b"},
		{nil, Unknown, "no property to judge"},
	}
	for _, c := range cases {
		w, s := Combined(c.ps)
		if w != c.word || s != c.text {
			t.Errorf("Combined(%v) = %q, %q; want %q, %q", c.ps, w, s, c.word, c.text)
		}
	}
	if got := Line(Valid, "x"); got != "verdict: valid (x)" {
		t.Errorf("Line: %q", got)
	}
}
