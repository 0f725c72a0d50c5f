// Package wintest runs aidex's Windows build under Wine on Linux (issue
// 31): the test binaries of the packages whose behaviour differs on
// Windows, and an end-to-end session of aidex.exe against a scripted
// model. It has no code but its tests; they skip when wine64 is not
// installed (CI installs it: .ci/run).
//
// Debian 12's Wine 8 lacks bcryptprimitives.dll, whose ProcessPrng every
// Go ≥ 1.22 program calls at start; testdata/bcryptprimitives.dll (built
// from testdata/bcryptprimitives.c, a forwarder to advapi32's
// SystemFunction036) is copied into the tests' own Wine prefix.
// Regenerate it with:
//
//	x86_64-w64-mingw32-gcc -shared -O2 -s -nostdlib -Wl,--entry,0 \
//	    -o testdata/bcryptprimitives.dll testdata/bcryptprimitives.c -ladvapi32 -lkernel32
//
// Where Wine differs from Windows the tests say so: os.RemoveAll fails
// under Wine 8 (Go's FILE_DISPOSITION_INFORMATION_EX delete is answered
// "Invalid function"), so a test whose only failure is t.TempDir's
// cleanup passes; Wine's powershell.exe is a stub (the PowerShell
// policy is tested on Linux); Wine has no 8.3 names on a Unix file
// system (the short-name logic is tested through a fake).
package wintest
