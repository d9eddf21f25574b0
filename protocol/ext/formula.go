package ext

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// formula is a message bound as a formula of n, the number of members:
// numbers, n, + - * / ^, parentheses, implicit products ("2n", "n(n+1)")
// and the functions log2, ceil, floor.
type formula struct {
	text string
	root func(n float64) float64
}

// parseFormula parses text, or says where it is wrong.
func parseFormula(text string) (formula, error) {
	p := &fparser{s: strings.NewReplacer(" ", "", "·", "*", "²", "^2").Replace(text)}
	f, err := p.sum()
	if err == nil && p.i < len(p.s) {
		err = fmt.Errorf("unexpected %q", p.s[p.i:])
	}
	if err != nil {
		return formula{}, fmt.Errorf("a formula of n (%v; allowed: numbers, n, + - * / ^, parentheses, log2, ceil, floor)", err)
	}
	return formula{text: text, root: f}, nil
}

// at is the formula's value for n members, rounded to the nearest integer.
func (f formula) at(n int) int { return int(math.Round(f.root(float64(n)))) }

type fparser struct {
	s string
	i int
}

func (p *fparser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *fparser) sum() (func(float64) float64, error) {
	l, err := p.product()
	for err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := p.peek()
		p.i++
		var r func(float64) float64
		if r, err = p.product(); err == nil {
			a, b := l, r
			if op == '+' {
				l = func(n float64) float64 { return a(n) + b(n) }
			} else {
				l = func(n float64) float64 { return a(n) - b(n) }
			}
		}
	}
	return l, err
}

func (p *fparser) product() (func(float64) float64, error) {
	l, err := p.power()
	for err == nil {
		op := p.peek()
		switch {
		case op == '*' || op == '/':
			p.i++
		case op == 'n' || op == '(' || op >= 'a' && op <= 'z':
			op = '*' // implicit product
		default:
			return l, nil
		}
		var r func(float64) float64
		if r, err = p.power(); err == nil {
			a, b := l, r
			if op == '/' {
				l = func(n float64) float64 { return a(n) / b(n) }
			} else {
				l = func(n float64) float64 { return a(n) * b(n) }
			}
		}
	}
	return l, err
}

func (p *fparser) power() (func(float64) float64, error) {
	b, err := p.atom()
	if err != nil || p.peek() != '^' {
		return b, err
	}
	p.i++
	e, err := p.power()
	return func(n float64) float64 { return math.Pow(b(n), e(n)) }, err
}

var functions = map[string]func(float64) float64{"log2": math.Log2, "ceil": math.Ceil, "floor": math.Floor}

func (p *fparser) atom() (func(float64) float64, error) {
	c := p.peek()
	switch {
	case c == '(':
		p.i++
		f, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, fmt.Errorf("missing )")
		}
		p.i++
		return f, nil
	case c == '-':
		p.i++
		f, err := p.power()
		return func(n float64) float64 { return -f(n) }, err
	case c >= '0' && c <= '9' || c == '.':
		j := p.i
		for j < len(p.s) && (p.s[j] >= '0' && p.s[j] <= '9' || p.s[j] == '.') {
			j++
		}
		v, err := strconv.ParseFloat(p.s[p.i:j], 64)
		p.i = j
		return func(float64) float64 { return v }, err
	}
	for name, fn := range functions {
		if strings.HasPrefix(p.s[p.i:], name+"(") {
			p.i += len(name)
			arg, err := p.atom()
			return func(n float64) float64 { return fn(arg(n)) }, err
		}
	}
	if c == 'n' {
		p.i++
		return func(n float64) float64 { return n }, nil
	}
	if c == 0 {
		return nil, fmt.Errorf("it ends too soon")
	}
	return nil, fmt.Errorf("unexpected %q", p.s[p.i:])
}
