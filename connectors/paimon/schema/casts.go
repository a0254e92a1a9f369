package schema

import "github.com/sqlrun/sqlrun/sql"

// supportsCast is Paimon's DataTypeCasts.supportsCast (release-1.4): the
// type pairs an ALTER TABLE MODIFY may change a column between, before
// CastExecutors is asked for the conversion. Explicit casts are allowed
// unless the table sets 'disable-explicit-type-casting'.
func supportsCast(from, to sql.DataType, allowExplicit bool) bool {
	if from.Nullable && !to.Nullable && !allowExplicit {
		return false
	}
	if from.WithNullable(true).Equal(to.WithNullable(true)) || from.Root == to.Root && !isCompositeRoot(from.Root) {
		// Same root: castTo(root).implicitFrom(root) for every root.
		return true
	}
	if castRoots(to.Root, false)[from.Root] {
		return true
	}
	return allowExplicit && castRoots(to.Root, true)[from.Root]
}

func isCompositeRoot(r sql.TypeRoot) bool {
	return r == sql.TypeRow || r == sql.TypeArray || r == sql.TypeMap
}

// The type families of DataTypeRoot that the rules name.
var (
	integerNumeric  = []sql.TypeRoot{sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt}
	numeric         = append(append([]sql.TypeRoot{}, integerNumeric...), sql.TypeFloat, sql.TypeDouble, sql.TypeDecimal)
	characterString = []sql.TypeRoot{sql.TypeChar, sql.TypeVarChar}
	binaryString    = []sql.TypeRoot{sql.TypeBinary, sql.TypeVarBinary}
	timestamps      = []sql.TypeRoot{sql.TypeTimestamp, sql.TypeTimestampLTZ}
	datetime        = append([]sql.TypeRoot{sql.TypeDate, sql.TypeTime}, timestamps...)
	predefined      = append(append(append(append([]sql.TypeRoot{sql.TypeBoolean}, numeric...), characterString...), binaryString...), datetime...)
	constructed     = []sql.TypeRoot{sql.TypeArray, sql.TypeMap, sql.TypeRow}
)

func rootSet(groups ...[]sql.TypeRoot) map[sql.TypeRoot]bool {
	m := map[sql.TypeRoot]bool{}
	for _, g := range groups {
		for _, r := range g {
			m[r] = true
		}
	}
	return m
}

func roots(rs ...sql.TypeRoot) []sql.TypeRoot { return rs }

// castRoots returns the source roots DataTypeCasts allows for target to:
// its implicit rules, or (explicit) the explicit ones added to them.
func castRoots(to sql.TypeRoot, explicit bool) map[sql.TypeRoot]bool {
	var implicit, expl [][]sql.TypeRoot
	numericTarget := func(imp ...sql.TypeRoot) {
		implicit = append(implicit, imp)
		expl = append(expl, numeric, characterString, roots(sql.TypeBoolean), timestamps)
	}
	switch to {
	case sql.TypeChar:
		implicit, expl = [][]sql.TypeRoot{roots(sql.TypeChar)}, [][]sql.TypeRoot{predefined, constructed}
	case sql.TypeVarChar:
		implicit, expl = [][]sql.TypeRoot{characterString}, [][]sql.TypeRoot{predefined, constructed}
	case sql.TypeBoolean:
		implicit, expl = [][]sql.TypeRoot{roots(sql.TypeBoolean)}, [][]sql.TypeRoot{characterString, integerNumeric}
	case sql.TypeBinary:
		implicit, expl = [][]sql.TypeRoot{roots(sql.TypeBinary)}, [][]sql.TypeRoot{characterString, roots(sql.TypeVarBinary)}
	case sql.TypeVarBinary:
		implicit, expl = [][]sql.TypeRoot{binaryString}, [][]sql.TypeRoot{characterString, roots(sql.TypeBinary)}
	case sql.TypeDecimal:
		implicit, expl = [][]sql.TypeRoot{numeric}, [][]sql.TypeRoot{characterString, roots(sql.TypeBoolean), timestamps}
	case sql.TypeTinyInt:
		numericTarget(sql.TypeTinyInt)
	case sql.TypeSmallInt:
		numericTarget(sql.TypeTinyInt, sql.TypeSmallInt)
	case sql.TypeInt:
		numericTarget(sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt)
	case sql.TypeBigInt:
		numericTarget(integerNumeric...)
	case sql.TypeFloat:
		numericTarget(sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeFloat, sql.TypeDecimal)
	case sql.TypeDouble:
		numericTarget(numeric...)
	case sql.TypeDate:
		implicit, expl = [][]sql.TypeRoot{roots(sql.TypeDate, sql.TypeTimestamp)}, [][]sql.TypeRoot{timestamps, characterString}
	case sql.TypeTime:
		implicit, expl = [][]sql.TypeRoot{roots(sql.TypeTime, sql.TypeTimestamp)}, [][]sql.TypeRoot{roots(sql.TypeTime), timestamps, characterString}
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		implicit, expl = [][]sql.TypeRoot{timestamps}, [][]sql.TypeRoot{datetime, characterString, numeric}
	default:
		implicit = [][]sql.TypeRoot{roots(to)}
	}
	if explicit {
		return rootSet(append(implicit, expl...)...)
	}
	return rootSet(implicit...)
}
