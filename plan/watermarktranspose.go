package plan

// watermarkChangelogNormalizeTranspose is Flink's
// WatermarkAssignerChangelogNormalizeTransposeRule (PHYSICAL_REWRITE's
// "watermark transpose" program, before changelog inference): a
// WatermarkAssigner above the ChangelogNormalize of an upsert source moves
// below its Exchange, so that watermarks are generated at the source from
// every row the source reads, not from what the normalize emits.
//
//   - WITHOUT_CALC: WatermarkAssigner / ChangelogNormalize / Exchange
//     becomes ChangelogNormalize / Exchange / WatermarkAssigner.
//   - WITH_CALC: WatermarkAssigner / Calc / ChangelogNormalize / Exchange.
//     When the Calc keeps every shuffle key as a plain field, the Calc and
//     the assigner move below the Exchange as a whole, the Exchange and the
//     normalize keyed by the keys' new positions. Otherwise the Calc gets
//     the missing keys appended (named unique as RowTypeUtils.getUniqueName
//     does: k, k_0, ...); if that Calc only permutes its input, the
//     assigner moves alone (its rowtime and expression mapped back through
//     the Calc) and the Calc stays above the normalize; else the extended
//     Calc and the assigner move below and a Calc above the normalize
//     drops the appended keys.
func watermarkChangelogNormalizeTranspose(_ *binder, n Node) (Node, error) {
	wm, ok := n.(*WatermarkAssigner)
	if !ok {
		return nil, nil
	}
	switch x := wm.input().(type) {
	case *ChangelogNormalize:
		ex, ok := upsertExchange(x.input())
		if !ok {
			return nil, nil
		}
		nw := &WatermarkAssigner{base: sameRow(ex.input()), Rowtime: wm.Rowtime, Expr: wm.Expr}
		ne := &Exchange{base: sameRow(nw), Keys: ex.Keys}
		return &ChangelogNormalize{base: sameRow(ne), Keys: x.Keys}, nil
	case *Calc:
		cn, ok := x.input().(*ChangelogNormalize)
		if !ok {
			return nil, nil
		}
		ex, ok := upsertExchange(cn.input())
		if !ok {
			return nil, nil
		}
		return transposeWithCalc(wm, x, cn, ex), nil
	}
	return nil, nil
}

func upsertExchange(n Node) (*Exchange, bool) {
	ex, ok := n.(*Exchange)
	if !ok || ex.Single || ex.Broadcast || len(ex.Keys) == 0 {
		return nil, false
	}
	return ex, true
}

// calcMapping maps input fields a Calc passes on as plain fields to their
// output position (the last one, as buildMapping's HashMap keeps it).
func calcMapping(exprs []Expr) map[int]int {
	m := map[int]int{}
	for j, e := range exprs {
		if r, ok := e.(*InputRef); ok {
			m[r.Index] = j
		}
	}
	return m
}

// renormalize rebuilds Exchange(keys) / ChangelogNormalize over in, the
// normalize's keys found by name in in's row (buildTreeInOrder's
// remappedUniqueKeys).
func renormalize(in Node, keys []int, cn *ChangelogNormalize) Node {
	ne := &Exchange{base: sameRow(in), Keys: keys}
	old := cn.Names()
	var ck []int
	for _, k := range cn.Keys {
		for i, name := range in.Names() {
			if name == old[k] {
				ck = append(ck, i)
				break
			}
		}
	}
	return &ChangelogNormalize{base: sameRow(ne), Keys: ck}
}

func transposeWithCalc(wm *WatermarkAssigner, calc *Calc, cn *ChangelogNormalize, ex *Exchange) Node {
	src := ex.input()
	m := calcMapping(calc.Exprs)
	var kept []int
	var missing []int
	for _, k := range ex.Keys {
		if j, ok := m[k]; ok {
			kept = append(kept, j)
		} else {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		nc := &Calc{base: row(calc.Names(), calc.Types(), src), Exprs: calc.Exprs, Cond: calc.Cond}
		nw := &WatermarkAssigner{base: sameRow(nc), Rowtime: wm.Rowtime, Expr: wm.Expr}
		return renormalize(nw, kept, cn)
	}
	// The Calc extended by the shuffle keys it drops.
	exprs := append([]Expr(nil), calc.Exprs...)
	names := append([]string(nil), calc.Names()...)
	types := append(calc.Types()[:0:0], calc.Types()...)
	for _, k := range missing {
		exprs = append(exprs, &InputRef{Index: k, T: src.Types()[k]})
		names = append(names, uniqueName(src.Names()[k], names)) // RowTypeUtils.getUniqueName
		types = append(types, src.Types()[k])
	}
	permutation := len(exprs) == len(src.Names())
	for _, e := range exprs {
		if _, ok := e.(*InputRef); !ok {
			permutation = false
		}
	}
	if permutation {
		// The assigner alone goes below; the Calc reads the same fields.
		inv := map[int]int{}
		for in, out := range m {
			inv[out] = in
		}
		rt, ok := inv[wm.Rowtime]
		if !ok {
			return nil
		}
		nw := &WatermarkAssigner{base: sameRow(src), Rowtime: rt, Expr: remap(wm.Expr, inv)}
		ne := &Exchange{base: sameRow(nw), Keys: ex.Keys}
		ncn := &ChangelogNormalize{base: sameRow(ne), Keys: cn.Keys}
		return &Calc{base: row(calc.Names(), calc.Types(), ncn), Exprs: calc.Exprs, Cond: calc.Cond}
	}
	nc := &Calc{base: row(names, types, src), Exprs: exprs, Cond: calc.Cond}
	nm := calcMapping(exprs)
	keys := make([]int, len(ex.Keys))
	for i, k := range ex.Keys {
		keys[i] = nm[k]
	}
	nw := &WatermarkAssigner{base: sameRow(nc), Rowtime: wm.Rowtime, Expr: wm.Expr}
	ncn := renormalize(nw, keys, cn)
	top := identity(calc.Types())
	topNames := ncn.Names()[:len(calc.Names())]
	return &Calc{base: row(topNames, calc.Types(), ncn), Exprs: top}
}
