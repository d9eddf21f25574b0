package rounds

import (
	"strconv"
	"strings"

	"manetlab/protocol"
)

// SyncNoteText is the Text of the protocol.NoteSync note a node makes when
// its synchronizer starts: "NAME nbrs=ID,ID,..." (its graph neighbours).
func SyncNoteText(sync string, nbrs []protocol.NodeID) string {
	return sync + " nbrs=" + JoinIDs(nbrs)
}

// ParseSyncNote reads a SyncNoteText; ok is false for other sync notes
// (the tree's "NAME tree parent=ID").
func ParseSyncNote(text string) (sync string, nbrs []protocol.NodeID, ok bool) {
	name, rest, _ := strings.Cut(text, " ")
	v, ok := strings.CutPrefix(rest, "nbrs=")
	if !ok {
		return "", nil, false
	}
	return name, ParseIDs(v), true
}

// JoinIDs writes IDs as "1,2,3"; ParseIDs reads them back, skipping what
// is not a number.
func JoinIDs(ids []protocol.NodeID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(uint64(id), 10)
	}
	return strings.Join(s, ",")
}

// ParseIDs reads "1,2,3" (see JoinIDs).
func ParseIDs(s string) []protocol.NodeID {
	var ids []protocol.NodeID
	for _, f := range strings.Split(s, ",") {
		if id, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32); err == nil {
			ids = append(ids, protocol.NodeID(id))
		}
	}
	return ids
}
