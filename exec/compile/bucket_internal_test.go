package compile

import (
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// TestChannelKeys: the key chosen for channel c hashes to subtask c, for
// every parallelism up to 64, so Paimon's channel computer decides which
// writer owns a bucket.
func TestChannelKeys(t *testing.T) {
	for n := 1; n <= 64; n++ {
		keys, err := channelKeys(n)
		if err != nil {
			t.Fatal(err)
		}
		for c, k := range keys {
			var enc state.Encoder
			if err := state.AppendKey(&enc, sql.Row{Values: []any{k}}, []int{0}); err != nil {
				t.Fatal(err)
			}
			if !runtime.OwnsKey(string(enc.Buf), c, n) {
				t.Fatalf("n=%d: key %d of channel %d: the runtime routes it elsewhere", n, k, c)
			}
		}
	}
}
