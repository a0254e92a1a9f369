package runtime

import (
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
)

// PartitionKind says how rows move from the subtasks of one vertex to the
// subtasks of the next.
type PartitionKind int

const (
	// Forward sends subtask i's rows to subtask i (equal parallelism).
	Forward PartitionKind = iota
	// Hash sends a row to subtask hash(key columns) mod parallelism, so all
	// rows of a key meet in one subtask (Flink's hash[...] exchange).
	Hash
	// Rebalance spreads batches round-robin over the receivers.
	Rebalance
	// Global sends everything to subtask 0 of a vertex with parallelism 1
	// (Flink's single/global exchange).
	Global
	// Broadcast sends every row to every receiver.
	Broadcast
	// Channel sends a row to the subtask its key column (Keys[0], an
	// INT) names: a custom partitioner whose channel the sender computed
	// (Paimon's FlinkStreamPartitioner, routing by the bucket
	// ChannelComputer). A value outside [0, parallelism) fails the job.
	Channel
)

func (k PartitionKind) String() string {
	switch k {
	case Forward:
		return "forward"
	case Hash:
		return "hash"
	case Rebalance:
		return "rebalance"
	case Global:
		return "global"
	case Broadcast:
		return "broadcast"
	case Channel:
		return "channel"
	}
	return fmt.Sprintf("partition(%d)", int(k))
}

// Partitioning is an edge's exchange: its kind and, for Hash, the key
// column indexes in the sender's row.
type Partitioning struct {
	Kind PartitionKind
	Keys []int
}

// OperatorFactory creates the operator instance of one subtask.
type OperatorFactory func(subtask, parallelism int) (Operator, error)

// Vertex is one node of the job graph. Exactly one of Source, Operator and
// Sink is set.
type Vertex struct {
	// UID identifies the vertex's state across runs: a restored checkpoint
	// matches state to vertices by UID, so the planner must derive it from
	// the plan (e.g. "ChangelogNormalize-2"), never from a counter that
	// changes when unrelated statements run.
	UID string
	// Name is shown in metrics and errors, e.g. "Calc[2]" or
	// "Sink: default_catalog.default_database.t".
	Name        string
	Parallelism int

	Source   connectors.TableSource
	Operator OperatorFactory
	Sink     connectors.TableSink
	// Committer, when set on a sink vertex, gets every writer's committable
	// once per completed checkpoint. When nil and Sink implements
	// connectors.Committer, the sink itself is used.
	Committer connectors.Committer

	inputs  []int // edge indexes into Graph.Edges, in input order
	outputs []int
	// align is a source's watermark alignment (AlignWatermarks); alignOf
	// is, on the generator chained after it, that source's index + 1.
	align   *AlignmentSpec
	alignOf int
}

// Edge connects two vertices.
type Edge struct {
	From, To int
	// Input is the index the receiving operator sees in ProcessBatch.
	Input     int
	Partition Partitioning
}

// Graph is a job: vertices connected by edges, without cycles. Build it
// with the Add* methods and Connect, then pass it to Start.
type Graph struct {
	// Name is the job name (pipeline.name); checkpoints live under
	// <state.checkpoints.dir>/<Name>/.
	Name     string
	Vertices []*Vertex
	Edges    []Edge
}

// NewGraph starts an empty graph for a job name.
func NewGraph(name string) *Graph { return &Graph{Name: name} }

func (g *Graph) add(v *Vertex) int {
	if v.Parallelism <= 0 {
		v.Parallelism = 1
	}
	g.Vertices = append(g.Vertices, v)
	return len(g.Vertices) - 1
}

// AddSource adds a source vertex reading src with parallelism readers.
func (g *Graph) AddSource(uid, name string, src connectors.TableSource, parallelism int) int {
	return g.add(&Vertex{UID: uid, Name: name, Source: src, Parallelism: parallelism})
}

// AddOperator adds an operator vertex.
func (g *Graph) AddOperator(uid, name string, f OperatorFactory, parallelism int) int {
	return g.add(&Vertex{UID: uid, Name: name, Operator: f, Parallelism: parallelism})
}

// AddSink adds a sink vertex writing to sink.
func (g *Graph) AddSink(uid, name string, sink connectors.TableSink, parallelism int) int {
	return g.add(&Vertex{UID: uid, Name: name, Sink: sink, Parallelism: parallelism})
}

// Connect adds an edge from → to and returns the input index it has at to
// (0 for the first edge into to, 1 for the second, ...).
func (g *Graph) Connect(from, to int, p Partitioning) int {
	input := 0
	for _, e := range g.Edges {
		if e.To == to {
			input++
		}
	}
	g.Edges = append(g.Edges, Edge{From: from, To: to, Input: input, Partition: p})
	return input
}

// Validate checks the graph's shape: kinds of vertices, unique UIDs,
// parallelism rules of each exchange, no cycles.
func (g *Graph) Validate() error {
	if len(g.Vertices) == 0 {
		return fmt.Errorf("job graph %q has no vertices", g.Name)
	}
	uids := map[string]bool{}
	for i, v := range g.Vertices {
		n := 0
		for _, set := range []bool{v.Source != nil, v.Operator != nil, v.Sink != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("vertex %d (%s) must have exactly one of Source, Operator, Sink", i, v.Name)
		}
		if v.UID == "" {
			return fmt.Errorf("vertex %d (%s) has no UID", i, v.Name)
		}
		if uids[v.UID] {
			return fmt.Errorf("duplicate vertex UID %q", v.UID)
		}
		uids[v.UID] = true
		v.inputs, v.outputs = nil, nil
	}
	for ei, e := range g.Edges {
		if e.From < 0 || e.From >= len(g.Vertices) || e.To < 0 || e.To >= len(g.Vertices) {
			return fmt.Errorf("edge %d points outside the graph", ei)
		}
		from, to := g.Vertices[e.From], g.Vertices[e.To]
		if from.Sink != nil {
			return fmt.Errorf("edge %d leaves sink %s", ei, from.Name)
		}
		if to.Source != nil {
			return fmt.Errorf("edge %d enters source %s", ei, to.Name)
		}
		switch e.Partition.Kind {
		case Forward:
			if from.Parallelism != to.Parallelism {
				return fmt.Errorf("forward edge %s → %s needs equal parallelism, have %d and %d",
					from.Name, to.Name, from.Parallelism, to.Parallelism)
			}
		case Global:
			if to.Parallelism != 1 {
				return fmt.Errorf("global edge into %s needs parallelism 1, has %d", to.Name, to.Parallelism)
			}
		case Hash:
			if len(e.Partition.Keys) == 0 {
				return fmt.Errorf("hash edge %s → %s has no key columns", from.Name, to.Name)
			}
		case Channel:
			if len(e.Partition.Keys) != 1 {
				return fmt.Errorf("channel edge %s → %s needs one channel column, has %d", from.Name, to.Name, len(e.Partition.Keys))
			}
		case Rebalance, Broadcast:
		default:
			return fmt.Errorf("edge %d has unknown partitioning %d", ei, e.Partition.Kind)
		}
		from.outputs = append(from.outputs, ei)
		to.inputs = append(to.inputs, ei)
	}
	for _, v := range g.Vertices {
		if v.Source == nil && len(v.inputs) == 0 {
			return fmt.Errorf("vertex %s has no input", v.Name)
		}
	}
	// Kahn's algorithm: a cycle would deadlock the barriers.
	indeg := make([]int, len(g.Vertices))
	for _, e := range g.Edges {
		indeg[e.To]++
	}
	var queue []int
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, i)
		}
	}
	seen := 0
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		seen++
		for _, ei := range g.Vertices[v].outputs {
			to := g.Edges[ei].To
			if indeg[to]--; indeg[to] == 0 {
				queue = append(queue, to)
			}
		}
	}
	if seen != len(g.Vertices) {
		return fmt.Errorf("job graph %q has a cycle", g.Name)
	}
	return nil
}

// String lists the vertices and edges, one per line, for logs and tests:
//
//	0 src "Source: orders" p=1 source
//	1 agg "GroupAggregate" p=2 operator <- 0 hash[2]
func (g *Graph) String() string {
	var b strings.Builder
	for i, v := range g.Vertices {
		kind := "operator"
		switch {
		case v.Source != nil:
			kind = "source"
		case v.Sink != nil:
			kind = "sink"
		}
		fmt.Fprintf(&b, "%d %s %q p=%d %s", i, v.UID, v.Name, v.Parallelism, kind)
		sep := " <- "
		for _, e := range g.Edges {
			if e.To != i {
				continue
			}
			b.WriteString(sep)
			sep = ", "
			fmt.Fprintf(&b, "%d %s", e.From, e.Partition.Kind)
			if e.Partition.Kind == Hash || e.Partition.Kind == Channel {
				fmt.Fprintf(&b, "%v", e.Partition.Keys)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
