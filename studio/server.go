package studio

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The limits of the studio's server, against a local user who opens
// connections and never finishes a request (issue 40): each connection
// has this long to send its header and its whole request, an idle
// keep-alive connection is closed after IdleTimeout, and at most MaxConns
// connections are held: one more closes the oldest one not being
// answered, so a real request is served at once however many are held.
const (
	MaxConns          = 64
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second
	IdleTimeout       = 60 * time.Second
	// WriteTimeout covers the longest step (maxSteps) and its answer.
	WriteTimeout   = 2 * time.Minute
	maxHeaderBytes = 16 << 10
)

// TokenHeader carries the session's token on every request of the page
// but the page itself: the token is in the URL the studio prints
// (?token=...), which only its user sees, so that another user of the
// machine, who can connect to 127.0.0.1 too, can neither act nor read
// the session.
const TokenHeader = "X-Studio-Token"

// NewToken is a fresh session secret: 16 random bytes in hex.
func NewToken() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// Token is the session's secret: the URL the studio prints carries it.
func (st *Studio) Token() string { return st.token }

// URL is the page's address on a server listening at addr.
func (st *Studio) URL(addr net.Addr) string {
	return "http://" + addr.String() + "/?token=" + st.token
}

// guard refuses, on every route, a Host other than the loopback address
// (DNS rebinding: another site's name resolved to 127.0.0.1 must not
// read the page, the state or the schedule) and, but for the page
// itself, a request without the session's token.
func (st *Studio) guard(next http.Handler) http.Handler { return Guard(st.token, next) }

// Guard is the studio's guard for a session of token: the live page
// (manetlab/live) serves behind it too.
func Guard(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := r.Host; !strings.HasPrefix(h, "127.0.0.1:") && !strings.HasPrefix(h, "localhost:") && !strings.HasPrefix(h, "[::1]:") {
			http.Error(w, "studio: only on 127.0.0.1", http.StatusForbidden)
			return
		}
		if r.URL.Path != "/" {
			tok := r.Header.Get(TokenHeader)
			if tok == "" {
				tok = r.URL.Query().Get("token")
			}
			if subtle.ConstantTimeCompare([]byte(tok), []byte(token)) != 1 {
				http.Error(w, "studio: no valid token: open the URL the studio printed (it ends in ?token=...)", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Server is the studio's HTTP server with its timeouts and its cap on
// connections, on a listener.
type Server struct {
	*http.Server
	limit *connLimit
}

// Server makes the server of the session on ln; Run serves until Close.
func (st *Studio) Server(ln net.Listener) *Server { return NewServer(ln, st.Handler()) }

// NewServer is a server for h on ln with the studio's timeouts and cap
// on connections (the live page's too).
func NewServer(ln net.Listener, h http.Handler) *Server {
	l := &connLimit{Listener: ln, max: MaxConns, conns: map[net.Conn]*connInfo{}}
	return &Server{Server: &http.Server{
		Handler:           l.serving(h),
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         l.state,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}, limit: l}
}

// Run serves until the server is closed (http.ErrServerClosed).
func (s *Server) Run() error { return s.Server.Serve(s.limit) }

// Held is the number of connections held now.
func (s *Server) Held() int {
	s.limit.mu.Lock()
	defer s.limit.mu.Unlock()
	return len(s.limit.conns)
}

type connKey struct{}

type connInfo struct {
	seq     uint64 // accept order
	serving bool   // a handler is answering on it
}

// connLimit holds at most max connections: at the cap, an accepted
// connection closes the oldest one that no handler is answering (one
// still sending its request, or idle); if every one is being answered,
// the new one is closed instead.
type connLimit struct {
	net.Listener
	max   int
	mu    sync.Mutex
	next  uint64
	conns map[net.Conn]*connInfo
}

func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if len(l.conns) >= l.max && !l.evict() {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.next++
		l.conns[c] = &connInfo{seq: l.next}
		l.mu.Unlock()
		return c, nil
	}
}

// evict closes the oldest connection not being answered; l.mu is held.
func (l *connLimit) evict() bool {
	var oldest net.Conn
	for c, info := range l.conns {
		if !info.serving && (oldest == nil || info.seq < l.conns[oldest].seq) {
			oldest = c
		}
	}
	if oldest == nil {
		return false
	}
	delete(l.conns, oldest)
	oldest.Close()
	return true
}

func (l *connLimit) state(c net.Conn, s http.ConnState) {
	if s == http.StateClosed || s == http.StateHijacked {
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
	}
}

// serving marks a connection as being answered while h runs.
func (l *connLimit) serving(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(net.Conn)
		l.mark(c, true)
		defer l.mark(c, false)
		h.ServeHTTP(w, r)
	})
}

func (l *connLimit) mark(c net.Conn, on bool) {
	l.mu.Lock()
	if info := l.conns[c]; info != nil {
		info.serving = on
	}
	l.mu.Unlock()
}
