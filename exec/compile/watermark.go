package compile

import (
	"fmt"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
)

// watermarkAssigner runs the WATERMARK FOR clause as an operator chained to
// its input (same parallelism, forward edge), as Flink's
// WatermarkAssignerOperator. Its input keeps the path (and so the state
// uids) it had before watermarks were generated at run time.
func (b *builder) watermarkAssigner(n *plan.WatermarkAssigner, path string) (edge, error) {
	in, err := b.build(n.Inputs()[0], path)
	if err != nil {
		return edge{}, err
	}
	interval, err := config.Duration(b.opts.Config, config.KeyWatermarkInterval)
	if err != nil {
		return edge{}, err
	}
	idle, err := config.Duration(b.opts.Config, config.KeyIdleTimeout)
	if err != nil {
		return edge{}, err
	}
	ev, err := plan.Compile(b.atStart(n.Expr))
	if err != nil {
		return edge{}, err
	}
	spec := operators.WatermarkSpec{Rowtime: n.Rowtime, Interval: interval, IdleTimeout: idle,
		Watermark: func(r sql.Row) (any, error) { return ev(r.Values) }}
	p := in.p
	if in.exchanged {
		p = b.defaultP
		if in.part.Kind == runtime.Global {
			p = 1
		}
	}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.WatermarkAssigner(spec), p)
	b.connect(in, v, p)
	return edge{vertex: v, p: p}, nil
}

// pushedWatermark generates the watermark a scan's source took
// (plan.PushedWatermark, Flink's SupportsWatermarkPushDown) in an operator
// chained right after the reader, at the source's parallelism, as the
// source says it emits it (connectors.WatermarkEmit): before each row (the
// values connector, as Flink's FromElementSourceFunctionWithWatermark),
// after each row (Paimon's default on-event strategy) or periodically, as
// a WatermarkAssigner; per split for a source whose reader reads splits
// (connectors.SplitSource, Paimon's FLIP-27 source), as Flink's
// SourceOperator does.
func (b *builder) pushedWatermark(n *plan.TableSourceScan, src edge, path string) (edge, error) {
	ev, err := plan.Compile(b.atStart(n.Watermark.Expr))
	if err != nil {
		return edge{}, err
	}
	spec := operators.WatermarkSpec{Rowtime: -1, Pushed: true, Watermark: func(r sql.Row) (any, error) { return ev(r.Values) }}
	emit := connectors.WatermarkPeriodic
	if s, ok := n.Table.Source.(connectors.WatermarkPushDownSource); ok {
		emit = s.WatermarkEmit()
	}
	// A source that reads splits generates it per split (its reader's
	// split events come with the rows on the forward edge).
	if s, ok := n.Table.Source.(connectors.SplitSource); ok && s.ReadsSplits() && emit != connectors.WatermarkBeforeRow {
		spec.PerSplit = true
	}
	interval, err := config.Duration(b.opts.Config, config.KeyWatermarkInterval)
	if err != nil {
		return edge{}, err
	}
	idle, err := config.Duration(b.opts.Config, config.KeyIdleTimeout)
	if err != nil {
		return edge{}, err
	}
	if spec.PerSplit {
		if spec, err = splitTiming(spec, n, emit, interval, idle); err != nil {
			return edge{}, err
		}
	} else {
		spec.PerRow, spec.Interval, spec.IdleTimeout = pushedTiming(emit, interval, idle)
	}
	align, err := alignmentOf(n)
	if err != nil {
		return edge{}, err
	}
	v := b.g.AddOperator(uid(path, n)+"-watermark", "WatermarkGenerator", operators.WatermarkAssigner(spec), src.p)
	b.connect(src, v, src.p)
	if align != nil {
		if err := b.g.AlignWatermarks(src.vertex, v, *align); err != nil {
			return edge{}, fmt.Errorf("table %s: %w", n.Table.ID, err)
		}
	}
	return edge{vertex: v, p: src.p}, nil
}

// pushedTiming is how a generator pushed into a source that does not read
// splits (splitTiming) emits, given pipeline.auto-watermark-interval and
// table.exec.source.idle-timeout: before each row, never idle (the values
// source); after each row that advances it, never idle (an on-event
// strategy checks the planner's WatermarksWithIdleness right after a
// row); or periodically, idle after the timeout.
func pushedTiming(emit connectors.WatermarkEmit, interval, idle time.Duration) (perRow bool, iv, it time.Duration) {
	switch emit {
	case connectors.WatermarkBeforeRow:
		return true, 0, 0
	case connectors.WatermarkAfterRow:
		return false, 0, 0
	}
	return false, interval, idle
}

// splitTiming is how a generator pushed into a source that reads splits
// emits (Flink's SourceOperator, ProgressiveTimestampsAndWatermarks): a
// periodic emit every pipeline.auto-watermark-interval; with on-event
// each split's watermark after its rows as well. Each split's generator,
// and the reader's main output, is wrapped in a WatermarksWithIdleness
// with the smallest of the source's own idle timeout (Paimon's
// 'scan.watermark.idle-timeout', BaseDataTableSource's withIdleness
// outside the emit strategy) and, unless on-event, the planner's
// table.exec.source.idle-timeout (WatermarkPushDownSpec's withIdleness,
// inside Paimon's OnEventWatermarkStrategy, which checks it right after
// each row, so that it never fires).
func splitTiming(spec operators.WatermarkSpec, n *plan.TableSourceScan, emit connectors.WatermarkEmit, interval, idle time.Duration) (operators.WatermarkSpec, error) {
	spec.Interval = interval
	spec.OnEvent = emit == connectors.WatermarkAfterRow
	timeout := time.Duration(0)
	if !spec.OnEvent && idle > 0 {
		timeout = idle
	}
	if s, ok := n.Table.Source.(connectors.WatermarkStrategySource); ok {
		own, err := s.WatermarkIdleTimeout()
		if err != nil {
			return spec, fmt.Errorf("table %s: %w", n.Table.ID, err)
		}
		if own > 0 && (timeout == 0 || own < timeout) {
			timeout = own
		}
	}
	spec.SplitIdleTimeout = timeout
	return spec, nil
}

// alignmentOf is the scan's watermark alignment (nil: none): the
// planner's WatermarkParams (FLIP-296: 'scan.watermark.alignment.group'
// with a positive 'scan.watermark.alignment.max-drift', which
// WatermarkPushDownSpec adds with withWatermarkAlignment), or, for a
// Paimon source, BaseDataTableSource's own withWatermarkAlignment from the
// same options, which it adds whenever the group is set.
func alignmentOf(n *plan.TableSourceScan) (*runtime.AlignmentSpec, error) {
	opts := n.Table.Options
	group := strings.TrimSpace(opts["scan.watermark.alignment.group"])
	if group == "" {
		return nil, nil
	}
	own := false
	if s, ok := n.Table.Source.(connectors.WatermarkStrategySource); ok && s.WatermarkAlignmentGroup() != "" {
		own = true
	}
	if n.Watermark.Alignment == "" && !own {
		return nil, nil
	}
	spec := &runtime.AlignmentSpec{Group: group, UpdateInterval: time.Second}
	if v := opts["scan.watermark.alignment.max-drift"]; v != "" {
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("table %s: Could not parse value '%s' for key 'scan.watermark.alignment.max-drift'.", n.Table.ID, v)
		}
		spec.MaxDrift = d
	}
	if v := opts["scan.watermark.alignment.update-interval"]; v != "" {
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("table %s: Could not parse value '%s' for key 'scan.watermark.alignment.update-interval'.", n.Table.ID, v)
		}
		spec.UpdateInterval = d
	}
	if spec.MaxDrift <= 0 {
		// Paimon passes an unset max drift on to Flink's
		// WatermarkAlignmentParams, which cannot run without one.
		return nil, fmt.Errorf("table %s: watermark alignment group '%s' needs a positive 'scan.watermark.alignment.max-drift'", n.Table.ID, group)
	}
	if spec.UpdateInterval <= 0 {
		return nil, fmt.Errorf("table %s: 'scan.watermark.alignment.update-interval' must be positive", n.Table.ID)
	}
	return spec, nil
}
