package export

import (
	"io"

	"manetlab/internal/tidy"
	"manetlab/protocol"
	"manetlab/trace"
)

// ParquetColumns are the columns of Parquet's event table, one row per
// event in merge order (the header apart). Integers the trace omits are
// 0 (to 0 is a broadcast), text it omits is null, and value, wall, the
// HLC and the position are null where the event has none.
var ParquetColumns = []tidy.Column{
	{Name: "t", Kind: tidy.Int64}, // ns since the run's start
	{Name: "node", Kind: tidy.Uint32},
	{Name: "ev", Kind: tidy.String},
	{Name: "kind", Kind: tidy.String},
	{Name: "from", Kind: tidy.Uint32},
	{Name: "to", Kind: tidy.Uint32},
	{Name: "seq", Kind: tidy.Uint64},
	{Name: "origin", Kind: tidy.Uint32},
	{Name: "oseq", Kind: tidy.Uint64},
	{Name: "hops", Kind: tidy.Int64},
	{Name: "bytes", Kind: tidy.Int64},
	{Name: "reason", Kind: tidy.String},
	{Name: "leader", Kind: tidy.Uint32},
	{Name: "value", Kind: tidy.Float64},
	{Name: "epoch", Kind: tidy.String},
	{Name: "peer", Kind: tidy.Uint32},
	{Name: "text", Kind: tidy.String},
	{Name: "x", Kind: tidy.Float64},
	{Name: "y", Kind: tidy.Float64},
	{Name: "z", Kind: tidy.Float64},
	{Name: "wall", Kind: tidy.Int64}, // Unix ns (real driver)
	{Name: "hlc_wall", Kind: tidy.Int64},
	{Name: "hlc_logical", Kind: tidy.Uint32},
	{Name: "src", Kind: tidy.String}, // file:line the event came from
}

// Parquet writes the selected events of the run in dirs as a Parquet
// table of ParquetColumns (trace export --format parquet), each as the
// merge hands it over: nothing of the run is held but the row group
// being written.
func Parquet(dirs []string, w io.Writer, opt Options) (*Report, error) {
	rep := &Report{}
	pw, err := tidy.NewWriter(w, "event", ParquetColumns)
	if err != nil {
		return nil, err
	}
	f := newFilter(opt)
	hosts := map[protocol.NodeID]bool{}
	str := func(i int, s string) {
		if s != "" {
			pw.Str(i, s)
		}
	}
	var werr error
	err = each(dirs, opt, rep, nil, func(e *trace.Event, _ bool) {
		if werr != nil || !f.keep(e) {
			return
		}
		hosts[e.Node] = true
		rep.Events++
		pw.Int(0, e.T)
		pw.Uint32(1, uint32(e.Node))
		pw.Str(2, e.Ev)
		str(3, e.Kind)
		pw.Uint32(4, uint32(e.From))
		pw.Uint32(5, uint32(e.To))
		pw.Uint64(6, e.Seq)
		pw.Uint32(7, uint32(e.Origin))
		pw.Uint64(8, e.OSeq)
		pw.Int(9, int64(e.Hops))
		pw.Int(10, int64(e.Bytes))
		str(11, e.Reason)
		pw.Uint32(12, uint32(e.Leader))
		if e.Value != nil {
			pw.Float(13, *e.Value)
		}
		str(14, e.Epoch)
		pw.Uint32(15, uint32(e.Peer))
		str(16, e.Text)
		if e.Pos != nil {
			pw.Float(17, e.Pos[0])
			pw.Float(18, e.Pos[1])
			pw.Float(19, e.Pos[2])
		}
		if e.Wall != 0 {
			pw.Int(20, e.Wall)
		}
		if e.HLC != nil {
			pw.Int(21, e.HLC.Wall)
			pw.Uint32(22, e.HLC.Logical)
		}
		str(23, e.Src)
		werr = pw.EndRow()
	})
	if err != nil {
		return nil, err
	}
	if werr != nil {
		return nil, werr
	}
	rep.Hosts = len(hosts)
	return rep, pw.Close()
}
