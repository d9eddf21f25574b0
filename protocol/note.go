package protocol

// Note is a protocol event worth recording in the trace: what the safety
// checkers and metrics are computed from.
type Note struct {
	Kind NoteKind
	// Leader is the leader a NoteLeader announces; None means this node
	// now has no leader.
	Leader NodeID
	// Value is the leader's value, for NoteLeader.
	Value float64
	// Epoch names the election (computation index, term, round) the note
	// belongs to; "" when the protocol has no such notion. The checker
	// allows at most one leader per epoch.
	Epoch string
	// Text is free detail for people reading the trace.
	Text string
}

// NoteKind is the type of a Note.
type NoteKind string

// The note kinds. Checkers rely on these names; add, never rename.
const (
	NoteLeader        NoteKind = "leader"         // this node's leader is now Leader (None: no leader)
	NoteElectionStart NoteKind = "election-start" // this node joined or started an election
	NoteElectionEnd   NoteKind = "election-end"   // this node's part in an election ended
	NoteCSRequest     NoteKind = "cs-request"     // asked for the critical section
	NoteCSEnter       NoteKind = "cs-enter"       // entered the critical section
	NoteCSExit        NoteKind = "cs-exit"        // left the critical section
	NoteInfo          NoteKind = "info"           // anything else
	NoteParent        NoteKind = "parent"         // this node's parent in a tree is now Leader (None: it is the root)
	// Synchronized rounds (package protocol/rounds).
	NoteSync  NoteKind = "sync"      // the synchronizer runs: Text "NAME nbrs=ID,ID,..." (its graph neighbours)
	NoteRound NoteKind = "round"     // this node ran round Epoch: Text "round R sent=K state=asleep|running|halted"
	NoteSafe  NoteKind = "safe"      // this node is safe for round Epoch (alpha, beta)
	NoteLate  NoteKind = "sync-late" // a message of round Epoch from Leader arrived after this node began round Epoch+1 (abd broke)
)
