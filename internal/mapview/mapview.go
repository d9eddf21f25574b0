// Package mapview is the map drawing that the pages share: the studio's,
// the report's and the live view's. It holds one script, JS, that each
// page inlines before its own: the projection (north up: y grows
// upwards on every page), the colour of a leader, the look of a leader
// and of a crashed node, and the placement of labels so that they never
// overlap each other or a node and are never cut by the map's edge.
// docs/studio.md and docs/analysis.md describe what the maps show.
package mapview

import _ "embed"

// JS defines the global ManetMap (mapview.js).
//
//go:embed mapview.js
var JS string

// CSS is the classes ManetMap's drawing uses (mapview.css).
//
//go:embed mapview.css
var CSS string
