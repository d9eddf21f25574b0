package analysis

// pluralS is the "s" of a plural noun after the count n: "1 violation",
// "2 violations".
func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
