package quietsysmon

import "testing"

func TestEnv(t *testing.T) {
	for _, tc := range []struct {
		environ []string
		want    string
		ok      bool
	}{
		{nil, "GODEBUG=" + Setting, true},
		{[]string{"HOME=/", "GODEBUG="}, "GODEBUG=" + Setting, true},
		{[]string{"GODEBUG=gctrace=1"}, "GODEBUG=gctrace=1," + Setting, true},
		{[]string{"GODEBUG=gctrace=1,schedtrace=1000"}, "", false},
		{[]string{"GODEBUG=schedtrace=1000", "GODEBUG=gctrace=1"}, "GODEBUG=gctrace=1," + Setting, true},
		{[]string{"GODEBUG=gctrace=1", "GODEBUG=" + Setting}, "", false},
	} {
		got, ok := Env(tc.environ)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Env(%q) = %q, %v; want %q, %v", tc.environ, got, ok, tc.want, tc.ok)
		}
	}
}
