package analysis

// MetricFormats is the one number format of each headline metric, by its
// JSON name, for every text that prints it: trace report, the sweep's
// table (mean±sd, each in this format) and the HTML report's table. A
// share is a fraction (F 0.0196), never a percentage, as JSON carries it.
var MetricFormats = map[string]string{
	"F":                "%.4f",
	"leader":           "%.4f",
	"wrong_or_unknown": "%.4f",
	"R":                "%.4f",
	"T":                "%.3f",
	"M_bcast":          "%.2f",
	"M_ucast":          "%.2f",
}
