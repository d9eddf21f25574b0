// Package geo holds the geometry shared by the radio and mobility models:
// points in metres and distances between them.
//
// It imports only the standard library.
package geo

import "math"

// Vec is a point or a velocity in metres (or metres per second).
type Vec struct{ X, Y, Z float64 }

// Add returns v+w.
func (v Vec) Add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y, v.Z + w.Z} }

// Sub returns v-w.
func (v Vec) Sub(w Vec) Vec { return Vec{v.X - w.X, v.Y - w.Y, v.Z - w.Z} }

// Scale returns v*k.
func (v Vec) Scale(k float64) Vec { return Vec{v.X * k, v.Y * k, v.Z * k} }

// Len returns the Euclidean length of v.
func (v Vec) Len() float64 { return math.Sqrt(v.X*v.X + v.Y*v.Y + v.Z*v.Z) }

// Dist returns the Euclidean distance between a and b.
func Dist(a, b Vec) float64 { return a.Sub(b).Len() }

// Dist2 returns the squared distance between a and b; cheaper when only
// comparing against a squared range.
func Dist2(a, b Vec) float64 {
	d := a.Sub(b)
	return d.X*d.X + d.Y*d.Y + d.Z*d.Z
}
