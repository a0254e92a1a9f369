package connectors

import (
	"strings"
	"testing"
)

func TestMaskOptionsHidesEmbeddedCredentials(t *testing.T) {
	got := MaskOptions(map[string]string{
		"password": "s3cret",
		"url":      "jdbc:mysql://127.0.0.1:3306/serving?user=app&password=s3cret&useSSL=false",
		"uri":      "mysql://app:s3cret@db:3306/x",
		"path":     "file:///tmp/a=b",
	})
	want := map[string]string{
		"password": "******",
		"url":      "jdbc:mysql://127.0.0.1:3306/serving?user=app&password=******&useSSL=false",
		"uri":      "mysql://app:******@db:3306/x",
		"path":     "file:///tmp/a=b",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q want %q", k, got[k], w)
		}
	}
}

func TestValidateMessages(t *testing.T) {
	f := testFactory{}
	err := Validate(f, map[string]string{"connector": "t", "foo": "1", "url": "x"})
	want := "Unsupported options found for 't'.\n\nUnsupported options:\n\nfoo\n\nSupported options:\n\nconnector\npassword\nurl"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	err = Validate(f, map[string]string{"connector": "t"})
	want = "One or more required options are missing.\n\nMissing required options are:\n\nurl"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

type testFactory struct{}

func (testFactory) Identifier() string { return "t" }
func (testFactory) Options() []Option {
	return []Option{{Key: "url", Required: true}, {Key: "password"}}
}

// TestParseMap: Flink's map options ('k1:v1,k2:v2'), with quoting
// protecting the separators (StructuredOptionsSplitter).
func TestParseMap(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"a:INT":                            "a=INT",
		" b : BIGINT , a:STRING ":          "b=BIGINT;a=STRING",
		`'d:"DECIMAL(10, 2)"', "a:'y''z'"`: "d=DECIMAL(10, 2);a=y'z",
		`"'e:x':y"`:                        "e:x=y",
		"a:1,a:2":                          "a=2",
	} {
		es, err := ParseMap(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		var got []string
		for _, e := range es {
			got = append(got, e.Key+"="+e.Value)
		}
		if strings.Join(got, ";") != want {
			t.Errorf("%q: got %q, want %q", in, strings.Join(got, ";"), want)
		}
	}
	for _, in := range []string{"a", "a:b:c", `d:"DECIMAL(10, 2)"`, `a:"x`, `a:"x"y`, `'e:x':y`} {
		if _, err := ParseMap(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
