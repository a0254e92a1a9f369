package exec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/exec"
	"github.com/sqlrun/sqlrun/internal/testutil/fakegateway"
)

// In the shell (RunInput) a gateway session sends each statement to the
// gateway, prints its result or its error block and goes on after an
// error, as the SQL client does; QUIT stays in the client.
func TestGatewayShell(t *testing.T) {
	g := fakegateway.Start(t)
	s := exec.NewSession()
	defer s.Close()
	s.Interactive = true
	ctx := context.Background()
	if err := s.UseGateway(ctx, g.URL); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if quit := s.RunInput(ctx, "SHOW TABLES; SELECT * FROM no_such_table; SHOW TABLES; QUIT;", &out); !quit {
		t.Fatalf("QUIT did not quit:\n%s", out.String())
	}
	text := out.String()
	if strings.Count(text, "| mysql_orders |") != 2 || !strings.Contains(text, "[ERROR] Could not execute SQL statement. Reason:\norg.apache.flink.table.api.ValidationException:") {
		t.Fatalf("shell output:\n%s", text)
	}
	if got := strings.Join(g.Statements(), " "); got != "SHOW SELECT SHOW" {
		t.Fatalf("statements sent: %s", got)
	}
	if err := s.CloseGateway(ctx); err != nil || g.OpenSessions() != 0 {
		t.Fatalf("close: %v, %d sessions open", err, g.OpenSessions())
	}
}
