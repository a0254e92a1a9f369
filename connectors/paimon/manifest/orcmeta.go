package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/format/orc"
)

// readORCRecords decodes a manifest, manifest list or index manifest that
// Paimon wrote with 'manifest.format' = 'orc' into the generic form
// readOCF gives for Avro (records as maps by field name, integers as
// int32/int64, arrays as []any), so the same decoders read both.
func readORCRecords(data []byte) ([]map[string]any, error) {
	f, err := orc.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, orc.ErrUnsupported) {
			return nil, fmt.Errorf("%w: ORC manifest ('manifest.format' = 'orc'): %v", ErrUnsupportedFormat, err)
		}
		return nil, fmt.Errorf("orc manifest: %w", err)
	}
	root := f.Schema()
	cols := make([]int, len(root.Children))
	for i := range cols {
		cols[i] = i
	}
	var out []map[string]any
	for s := 0; s < f.NumStripes(); s++ {
		vals, n, err := f.ReadStripe(s, cols)
		if err != nil {
			if errors.Is(err, orc.ErrUnsupported) {
				return nil, fmt.Errorf("%w: ORC manifest ('manifest.format' = 'orc'): %v", ErrUnsupportedFormat, err)
			}
			return nil, fmt.Errorf("orc manifest: %w", err)
		}
		for r := 0; r < n; r++ {
			m := make(map[string]any, len(cols))
			for i, name := range root.FieldNames {
				m[name] = genericORC(root.Children[i], vals[i][r])
			}
			out = append(out, m)
		}
	}
	return out, nil
}

func genericORC(t *orc.Type, v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int8:
		return int32(x)
	case int16:
		return int32(x)
	case []any:
		out := make([]any, len(x))
		if t.Kind == orc.Struct {
			m := make(map[string]any, len(x))
			for i, e := range x {
				m[t.FieldNames[i]] = genericORC(t.Children[i], e)
			}
			return m
		}
		for i, e := range x {
			out[i] = genericORC(t.Children[0], e)
		}
		return out
	case orc.TS:
		return time.Unix(x.Wall, int64(x.Nano)).UTC()
	}
	return v
}
