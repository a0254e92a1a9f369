package jackson

import "testing"

func TestFormat(t *testing.T) {
	got, err := Format([]byte(`{"version":3,"fields":[{"id":0,"name":"a\"<b>\u0001é"},{"id":1}],"keys":[],"opts":{},"list":["x","y"],"big":9223372036854775807,"f":3.000000000,"n":null,"b":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version" : 3,
  "fields" : [ {
    "id" : 0,
    "name" : "a\"<b>\u0001é"
  }, {
    "id" : 1
  } ],
  "keys" : [ ],
  "opts" : { },
  "list" : [ "x", "y" ],
  "big" : 9223372036854775807,
  "f" : 3.000000000,
  "n" : null,
  "b" : true
}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := Format([]byte(`{"a":1} x`)); err == nil {
		t.Fatal("trailing garbage accepted")
	}
	if _, err := Format([]byte(`{"a":`)); err == nil {
		t.Fatal("truncated accepted")
	}
}
