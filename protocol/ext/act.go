package ext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// notes are the note kinds a program may give (protocol.NoteKind).
var notes = map[string]protocol.NoteKind{}

func init() {
	for _, k := range []protocol.NoteKind{protocol.NoteLeader, protocol.NoteElectionStart, protocol.NoteElectionEnd,
		protocol.NoteCSRequest, protocol.NoteCSEnter, protocol.NoteCSExit, protocol.NoteInfo, protocol.NoteParent} {
		notes[string(k)] = k
	}
}

// reservedTimers are timer names a program may not use: the reliable
// channel's and the request generator's.
func reservedTimer(name string) bool {
	return name == reliable.DefaultTimer || strings.HasPrefix(name, "workload/")
}

// maxSays is the longest line a program may give for what a message
// carries.
const maxSays = 200

// act carries out one action, or says why it cannot.
func (p *proc) act(a action) error {
	env := p.cfg.Env
	switch a.Do {
	case "send", "deliver", "reliable_send", "ring_send", "broadcast", "flood":
		m, err := p.message(a)
		if err != nil {
			return err
		}
		return p.send(a, m)
	case "set_timer":
		if a.Name == "" || reservedTimer(a.Name) {
			return fmt.Errorf("set_timer needs a \"name\" (not %q, not workload/...)", reliable.DefaultTimer)
		}
		d, err := after(a)
		if err != nil {
			return err
		}
		if id, ok := p.timers[a.Name]; ok {
			env.CancelTimer(id)
		}
		p.timers[a.Name] = env.SetTimer(d, a.Name, 0)
	case "cancel_timer":
		if id, ok := p.timers[a.Name]; ok {
			env.CancelTimer(id)
			delete(p.timers, a.Name)
		}
	case "note":
		kind, ok := notes[a.Note]
		if !ok {
			return fmt.Errorf("note %q is not a note kind (allowed: leader, election-start, election-end, cs-request, cs-enter, cs-exit, info, parent)", a.Note)
		}
		epoch, err := epochText(a.Epoch)
		if err != nil {
			return err
		}
		n := protocol.Note{Kind: kind, Epoch: epoch, Text: a.Text, Value: a.Value}
		if a.Leader != nil {
			n.Leader = *a.Leader
		}
		if (kind == protocol.NoteLeader || kind == protocol.NoteParent) && a.Leader == nil {
			return fmt.Errorf("note %q needs \"leader\" (0 for none)", a.Note)
		}
		env.Note(n)
	case "log":
		env.Logf("%s", a.Text)
	case "describe":
		return fmt.Errorf("describe is the reply to a describe event only")
	case "":
		return fmt.Errorf("no \"do\"")
	default:
		return fmt.Errorf("unknown action %q (allowed: send, deliver, reliable_send, ring_send, broadcast, flood, set_timer, cancel_timer, note, log)", a.Do)
	}
	return nil
}

// message checks an action's kind and body.
func (p *proc) message(a action) (Msg, error) {
	if why := validKind(a.Kind); why != "" {
		return Msg{}, fmt.Errorf("%s", why)
	}
	if len(a.Body) > MaxBody {
		return Msg{}, fmt.Errorf("body of %d bytes, more than %d", len(a.Body), MaxBody)
	}
	var body []byte
	if len(a.Body) > 0 && string(a.Body) != "null" {
		var buf bytes.Buffer
		if err := json.Compact(&buf, a.Body); err != nil {
			return Msg{}, fmt.Errorf("body: %v", err)
		}
		body = buf.Bytes()
	}
	if len(a.Says) > maxSays {
		return Msg{}, fmt.Errorf("says: %d bytes, more than %d", len(a.Says), maxSays)
	}
	return Msg{K: a.Kind, Body: body, Says: a.Says}, nil
}

// send sends m as a says.
func (p *proc) send(a action, m Msg) error {
	env, self := p.cfg.Env, p.cfg.ID
	to := a.To
	switch a.Do {
	case "broadcast":
		env.Broadcast(m)
		return nil
	case "flood":
		env.Flood(m)
		return nil
	case "ring_send":
		r := p.set.ring
		if r == nil {
			return fmt.Errorf("ring_send, but the scenario gives no ring (set protocol.params.ring)")
		}
		switch a.Dir {
		case "", "next":
			to = r.Successor(self)
		case "prev":
			to = r.Predecessor(self)
		default:
			return fmt.Errorf("dir %q (allowed: next, prev)", a.Dir)
		}
		if to == self {
			return fmt.Errorf("ring_send in a ring of one")
		}
		p.ch.Send(to, m)
		return nil
	}
	if !p.member(to) || to == self {
		return fmt.Errorf("\"to\": %d is not another member of the run", to)
	}
	switch a.Do {
	case "send":
		env.Send(to, m)
	case "deliver":
		env.Deliver(to, m)
	case "reliable_send":
		p.ch.Send(to, m)
	}
	return nil
}

func (p *proc) member(id protocol.NodeID) bool {
	_, ok := slices.BinarySearch(p.cfg.Members, id)
	return ok
}
