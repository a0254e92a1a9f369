package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Plan is the result of planning one INSERT, SELECT or statement set.
type Plan struct {
	// Statement is the planned statement's text.
	Statement string
	// Logical are the Abstract Syntax Tree roots (one per sink).
	Logical []Node
	// Physical are the optimized physical plan roots, with changelog modes.
	Physical []*Sink
	// Streaming is false in batch runtime mode.
	Streaming bool
	// Query is true for a SELECT (its root is a collect sink).
	Query bool
	// Config is the session configuration the plan was made under.
	Config map[string]string
}

// Planner plans statements against an environment.
type Planner struct {
	env Env
}

// New returns a planner over env.
func New(env Env) *Planner { return &Planner{env: env} }

func (p *Planner) binder() *binder {
	cfg := p.env.Config()
	if cfg == nil {
		cfg = map[string]string{}
	}
	mode, _ := config.Enum(cfg, config.KeyRuntimeMode) // SET checked it
	zone, err := config.TimeZone(cfg)
	if err != nil {
		zone = time.UTC // SET checked it
	}
	return &binder{env: p.env, config: cfg, streaming: mode != "batch", zone: zone}
}

// PlanStatement plans an INSERT, a query or a statement set. The collect
// sink of a query asks for -U as the SQL client's SELECT does; EXPLAIN of
// a query does not (use Explain).
func (p *Planner) PlanStatement(stmt ast.Statement) (pl *Plan, err error) {
	return p.plan(stmt, false)
}

func (p *Planner) plan(stmt ast.Statement, explain bool) (pl *Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			// A planner bug must not take the shell down; the fuzz test
			// looks for this message.
			pl, err = nil, sql.Errorf(sql.TableException, "internal planner error: %v", r)
		}
	}()
	b := p.binder()
	pl = &Plan{Statement: stmt.SQL(), Streaming: b.streaming, Config: b.config}
	var roots []Node
	switch x := stmt.(type) {
	case *ast.Insert:
		r, err := b.bindInsert(x)
		if err != nil {
			return nil, err
		}
		roots = append(roots, r)
	case *ast.StatementSet:
		for _, ins := range x.Inserts {
			r, err := b.bindInsert(ins)
			if err != nil {
				return nil, err
			}
			roots = append(roots, r)
		}
	case *ast.Query:
		r, err := b.bindQuery(x.Body)
		if err != nil {
			return nil, err
		}
		roots = append(roots, r)
		pl.Query = true
	default:
		return nil, sql.Errorf(sql.TableException, "Unsupported statement for planning: %T", stmt)
	}
	if err := b.validateJoinHints(); err != nil {
		return nil, err
	}
	pl.Logical = roots
	for _, r := range roots {
		phys, err := b.optimize(r, nil)
		if err != nil {
			return nil, err
		}
		phys = castJoinRowtime(materializeProctime(phys))
		sink, ok := phys.(*Sink)
		if pl.Query {
			// The query's columns keep the names its select list gives
			// them (Calcite's RelRoot.validatedRowType), whatever names a
			// rule such as ProjectRemoveRule left on the plan's root.
			sink, ok = &Sink{base: row(r.Names(), phys.Types(), phys), Collect: true}, true
		}
		if !ok {
			return nil, sql.Errorf(sql.TableException, "cannot plan %s as a statement's root", phys.Name())
		}
		pl.Physical = append(pl.Physical, sink)
	}
	for i, r := range pl.Physical {
		if b.streaming {
			r, err = inferChangelog(r, b.config, pl.Query && explain)
			if err == nil {
				err = checkNonDeterministicUpdates(r, b.config)
			}
			if err == nil {
				r, err = applyMiniBatch(r, b.config)
			}
		} else {
			err = checkBatch(r)
		}
		if err != nil {
			return nil, err
		}
		pl.Physical[i] = r
	}
	if pl.Physical, err = reuseScans(b, pl.Physical, b.config, b.hintNames != nil); err != nil {
		return nil, err
	}
	return pl, nil
}

// bindInsert binds INSERT INTO t [(cols)] query into LogicalSink.
func (b *binder) bindInsert(x *ast.Insert) (*LogicalSink, error) {
	if id, t, err := b.env.LookupTable(x.Table); err == nil && t.IsView() {
		return nil, sql.Errorf(sql.ValidationException, "View '%s' cannot be written: INSERT needs a table.", id)
	}
	ref, err := b.resolveTable(x.Table, x.Hints)
	if err != nil {
		return nil, err
	}
	if err := b.createSink(ref); err != nil {
		return nil, err
	}
	// Computed and virtual metadata columns are not written: the sink
	// schema is the persisted columns (physical and persisted metadata, in
	// declaration order).
	sch, metas, err := sinkSchema(ref)
	if err != nil {
		return nil, err
	}
	static := map[string]string{}
	for _, pv := range x.Partition {
		if sch.Index(pv.Column) < 0 || !contains(ref.Table.PartitionKeys, pv.Column) {
			return nil, validationErr(pv.At, len(pv.Column), "Unknown static partition column '%s'.", pv.Column)
		}
		static[pv.Column] = sql.FormatValue(pv.Value.Value, pv.Value.Type)
	}
	if x.Overwrite {
		ow, ok := ref.Sink.(connectors.OverwritableSink)
		if !ok {
			return nil, sql.Errorf(sql.ValidationException,
				"INSERT OVERWRITE requires that the underlying DynamicTableSink of table '%s' implements the SupportsOverwrite interface.", ref.ID)
		}
		if err := ow.ApplyOverwrite(static); err != nil {
			return nil, err
		}
	}
	q, err := b.bindQuery(x.Query)
	if err != nil {
		return nil, err
	}
	cols := sch.Columns
	if len(x.Partition) > 0 {
		// Static partition values become constants of the rewritten
		// select list; the query provides the other columns, in the
		// order of the column list or of the table.
		q, err = b.addStaticPartitions(x, ref, sch, q)
		if err != nil {
			return nil, err
		}
		x = &ast.Insert{StmtBase: x.StmtBase, Overwrite: x.Overwrite, Table: x.Table, Hints: x.Hints}
	}
	var target []int
	if x.Columns != nil {
		if len(x.Columns) != len(q.Names()) {
			return nil, sinkMismatch(ref, "Different number of columns.", q.Names(), q.Types(), cols)
		}
		pos := make([]int, len(cols))
		for i := range pos {
			pos[i] = -1
		}
		for i, c := range x.Columns {
			j := sch.Index(c)
			if j < 0 {
				return nil, validationErr(x.At, len(c), "Unknown target column '%s'", c)
			}
			if pos[j] >= 0 {
				return nil, validationErr(x.At, len(c), "Target column '%s' is assigned more than once", c)
			}
			pos[j] = i
			target = append(target, j)
		}
		exprs := make([]Expr, len(cols))
		names := make([]string, len(cols))
		for j, c := range cols {
			if pos[j] < 0 {
				if !c.Type.Nullable {
					return nil, validationErr(x.At, len(c.Name), "Column '%s' has no default value and does not allow NULLs", c.Name)
				}
				exprs[j] = &Literal{T: c.Type.WithNullable(true)}
				names[j] = "EXPR$" + strconv.Itoa(j)
				continue
			}
			exprs[j] = &InputRef{Index: pos[j], T: q.Types()[pos[j]]}
			names[j] = q.Names()[pos[j]]
			if strings.HasPrefix(names[j], "EXPR$") {
				// Flink rewrites the select list to the sink's order
				// (PreValidateReWriter), so generated names follow the
				// new positions.
				names[j] = "EXPR$" + strconv.Itoa(j)
			}
		}
		q = mergeProject(q, exprs, names)
	}
	if len(q.Names()) != len(cols) {
		return nil, sinkMismatch(ref, "Different number of columns.", q.Names(), q.Types(), cols)
	}
	needCast := false
	casted := make([]Expr, len(cols))
	for i, c := range cols {
		qt := q.Types()[i]
		if !supportsImplicitCast(qt, c.Type) {
			return nil, sinkMismatch(ref, fmt.Sprintf("Incompatible types for sink column '%s' at position %d.", c.Name, i), q.Names(), q.Types(), cols)
		}
		// RexUtil.generateCastExpressions casts to the sink column's
		// type, its nullability included (CAST(a AS BIGINT) into a
		// nullable BIGINT column from an INT NOT NULL a); a difference in
		// nullability alone is no cast (RexSimplify.simplifyCast).
		// A nullable input cast into a NOT NULL column is typed NOT NULL
		// here as in Calcite; the sink's NotNullEnforcer, which checks
		// every NOT NULL column whatever its input's type, stops its nulls.
		// Whether to cast at all is decided on the planner's logical
		// types (validateSchemaAndApplyImplicitCast reads the query's row
		// through toLogicalRowType): a TIME(3) literal or cast into a
		// TIME(0) column is TIME(0) into TIME(0), no cast (sql.Planned).
		casted[i] = &InputRef{Index: i, T: qt}
		if !qt.WithNullable(true).Equal(c.Type.WithNullable(true)) {
			casted[i] = &Call{Op: "CAST", Args: []Expr{casted[i]}, T: c.Type}
			if !sql.Planned(qt).WithNullable(true).Equal(sql.Planned(c.Type).WithNullable(true)) {
				needCast = true
			}
		}
	}
	if needCast {
		// DynamicSinkUtils.validateSchemaAndApplyImplicitCast casts with
		// RelOptUtil.createCastRel(query, sinkRowType, rename=true): the
		// casting projection takes the sink's column names.
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
		}
		q = mergeProject(q, casted, names)
	}
	if len(metas) > 0 {
		q = pushSinkMetadataProjection(q, cols, metas)
	}
	return &LogicalSink{base: sameRow(q), Table: ref, TargetColumns: target, SinkHints: sinkHints(x.Hints)}, nil
}

// sinkMismatch is Flink's DynamicSinkUtils schema mismatch error.
func sinkMismatch(ref *TableRef, cause string, names []string, types []sql.DataType, cols []sql.Column) error {
	q := make([]string, len(names))
	for i := range names {
		q[i] = names[i] + ": " + types[i].String()
	}
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = c.Name + ": " + c.Type.String()
	}
	return sql.Errorf(sql.ValidationException,
		"Column types of query result and sink for '%s' do not match.\nCause: %s\n\nQuery schema: [%s]\nSink schema:  [%s]",
		ref.ID, cause, strings.Join(q, ", "), strings.Join(s, ", "))
}

// checkBatch enforces batch mode's rule: every source insert-only.
func checkBatch(r *Sink) error {
	var err error
	Walk(r, func(n Node) {
		n.head().mode = sql.InsertOnly
		switch x := n.(type) {
		case *Sink:
			x.mode = sql.NoChanges
		case *TableSourceScan:
			if err == nil && !x.Table.Source.ChangelogMode().IsInsertOnly() {
				err = sql.Errorf(sql.TableException,
					"Querying a table in batch mode is currently only possible for INSERT-only table sources. But the source for table '%s' produces other changelog messages than just INSERT.", x.Table.ID)
			}
		}
	})
	if err != nil {
		return err
	}
	if !r.Collect {
		if _, e := r.Table.Sink.ChangelogMode(sql.InsertOnly); e != nil {
			return e
		}
	}
	return nil
}

func sinkHints(hints []ast.Hint) []ast.Option {
	var out []ast.Option
	for _, h := range hints {
		if h.Name == "OPTIONS" {
			out = append(out, h.Options...)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// addStaticPartitions puts the PARTITION (k = v) constants into the query
// at their sink positions, as Flink's PreValidateReWriter does.
func (b *binder) addStaticPartitions(x *ast.Insert, ref *TableRef, sch sql.Schema, q Node) (Node, error) {
	cols := sch.Columns
	static := map[int]*ast.Literal{}
	for _, pv := range x.Partition {
		static[sch.Index(pv.Column)] = pv.Value
	}
	var targets []int
	if x.Columns != nil {
		for _, c := range x.Columns {
			j := sch.Index(c)
			if j < 0 {
				return nil, validationErr(x.At, len(c), "Unknown target column '%s'", c)
			}
			targets = append(targets, j)
		}
	} else {
		for j := range cols {
			if static[j] == nil {
				targets = append(targets, j)
			}
		}
	}
	if len(targets) != len(q.Names()) {
		return nil, sinkMismatch(ref, "Different number of columns.", q.Names(), q.Types(), cols)
	}
	pos := make([]int, len(cols))
	for j := range pos {
		pos[j] = -1
	}
	for i, j := range targets {
		pos[j] = i
	}
	exprs := make([]Expr, len(cols))
	names := make([]string, len(cols))
	for j, c := range cols {
		names[j] = c.Name
		switch {
		case static[j] != nil:
			lit, err := bindLiteral(static[j])
			if err != nil {
				return nil, err
			}
			exprs[j] = castExpr(lit, c.Type.NotNull())
		case pos[j] >= 0:
			exprs[j] = &InputRef{Index: pos[j], T: q.Types()[pos[j]]}
		default:
			if !c.Type.Nullable {
				return nil, validationErr(x.At, len(c.Name), "Column '%s' has no default value and does not allow NULLs", c.Name)
			}
			exprs[j] = &Literal{T: c.Type.WithNullable(true)}
		}
	}
	return mergeProject(q, exprs, names), nil
}

// sinkMetadata is one persisted metadata column an INSERT writes: its
// position among the sink schema's columns and the key's writable type.
type sinkMetadata struct {
	pos int
	key string
	t   sql.DataType
}

// sinkSchema is the schema an INSERT into ref writes, the persisted
// columns in declaration order (physical and not VIRTUAL metadata ones),
// and the metadata columns among them in the order the sink consumes
// them. It checks and applies the metadata as Flink's
// DynamicSinkUtils.validateAndApplyMetadata does (SupportsWritingMetadata:
// each key writable, each column's type castable to the key's type), and
// orders the keys as createRequiredMetadataKeys does: by the sink's
// listWritableMetadata.
func sinkSchema(ref *TableRef) (sql.Schema, []sinkMetadata, error) {
	var persisted []catalog.TableColumn
	for _, c := range ref.Table.MetadataColumns() {
		if !c.Virtual {
			persisted = append(persisted, c)
		}
	}
	if len(persisted) == 0 {
		return ref.Schema, nil, nil
	}
	ms, ok := ref.Sink.(connectors.MetadataSink)
	if !ok {
		return sql.Schema{}, nil, sql.Errorf(sql.ValidationException,
			"Table '%s' declares persistable metadata columns, but the underlying DynamicTableSink doesn't implement the SupportsWritingMetadata interface. If the column should not be persisted, it can be declared with the VIRTUAL keyword.", ref.ID)
	}
	writable := ms.WritableMetadata()
	keys := make([]string, len(writable))
	for i, w := range writable {
		keys[i] = w.Key
	}
	typeOf := map[string]sql.DataType{}
	for _, c := range persisted {
		i := slices.Index(keys, c.Key())
		if i < 0 {
			return sql.Schema{}, nil, sql.Errorf(sql.ValidationException,
				"Invalid metadata key '%s' in column '%s' of table '%s'. The DynamicTableSink class '%s' supports the following metadata keys for writing:\n%s",
				c.Key(), c.Name, ref.ID, ms.SinkClass(), strings.Join(keys, "\n"))
		}
		mt := writable[i].Type
		if castRefusal(c.Type, mt) != "" {
			if c.Key() == c.Name {
				return sql.Schema{}, nil, sql.Errorf(sql.ValidationException,
					"Invalid data type for metadata column '%s' of table '%s'. The column cannot be declared as '%s' because the type must be castable to metadata type '%s'.",
					c.Name, ref.ID, c.Type, mt)
			}
			return sql.Schema{}, nil, sql.Errorf(sql.ValidationException,
				"Invalid data type for metadata column '%s' with metadata key '%s' of table '%s'. The column cannot be declared as '%s' because the type must be castable to metadata type '%s'.",
				c.Name, c.Key(), ref.ID, c.Type, mt)
		}
		typeOf[c.Key()] = mt
	}
	sch := ref.Schema
	sch.Columns = nil
	posOf := map[string]int{}
	for _, c := range ref.Table.Columns() {
		switch {
		case c.Kind == catalog.Physical:
			sch.Columns = append(sch.Columns, c.Column)
		case c.Kind == catalog.Metadata && !c.Virtual:
			posOf[c.Key()] = len(sch.Columns)
			sch.Columns = append(sch.Columns, c.Column)
		}
	}
	var metas []sinkMetadata
	var applied []string
	for _, k := range keys {
		if pos, ok := posOf[k]; ok {
			metas = append(metas, sinkMetadata{pos: pos, key: k, t: typeOf[k]})
			applied = append(applied, k)
		}
	}
	ms.ApplyWritableMetadata(applied)
	return sch, metas, nil
}

// pushSinkMetadataProjection reorders q, aligned with the sink schema
// cols, into what the sink consumes: the physical columns, then the
// metadata ones in the sink's key order, each cast to its key's type and
// named by its key (made unique as Calcite's RelBuilder does), as Flink's
// DynamicSinkUtils.pushMetadataProjection does.
func pushSinkMetadataProjection(q Node, cols []sql.Column, metas []sinkMetadata) Node {
	isMeta := map[int]bool{}
	for _, m := range metas {
		isMeta[m.pos] = true
	}
	var exprs []Expr
	var names []string
	for i, c := range cols {
		if !isMeta[i] {
			exprs = append(exprs, &InputRef{Index: i, T: q.Types()[i]})
			names = append(names, c.Name)
		}
	}
	for _, m := range metas {
		var e Expr = &InputRef{Index: m.pos, T: q.Types()[m.pos]}
		if !e.Type().WithNullable(true).Equal(m.t.WithNullable(true)) {
			e = &Call{Op: "CAST", Args: []Expr{e}, T: m.t}
		}
		exprs = append(exprs, e)
		names = append(names, m.key)
	}
	return mergeProject(q, exprs, uniquifyF(names))
}

// uniquifyF renames duplicate names as Calcite's SqlValidatorUtil.uniquify
// with F_SUGGESTER does: a taken name gets the suffix max(number of names
// taken, attempt), e.g. metadata_2 after three names is metadata_23
// (TableSinkTest.testMetadataColumnThatConflictsWithPhysicalColumn).
func uniquifyF(names []string) []string {
	seen := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		cand := n
		for k := 0; seen[strings.ToLower(cand)]; k++ {
			cand = n + strconv.Itoa(max(len(seen), k))
		}
		seen[strings.ToLower(cand)] = true
		out[i] = cand
	}
	return out
}
