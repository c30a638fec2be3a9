# perl and child processes: open with '-|' and '|-' (a pipe to and from a
# command), IPC::Open3 with all three streams, IPC::Open2, pipe and fork,
# a duplicate of STDOUT ('>&'), a handle on an existing descriptor by
# number ('<&='), backticks, system, socketpair. Run in an empty
# directory with perl.
use strict;
use warnings;
use IPC::Open2;
use IPC::Open3;
use IO::Handle;
use Socket;
use Symbol 'gensym';
$| = 1;
open(my $p, '-|', 'seq', '1', '3') or die "seq: $!";
print "from seq: $_" while <$p>;
close $p or die "close seq: $!";
open(my $w, '|-', 'sort') or die "sort: $!";
print $w "b\na\n";
close $w or die "close sort: $!";
my $err = gensym;
my $pid = open3(my $in, my $out, $err, 'sh', '-c', 'read x; echo out:$x; echo err:$x >&2; exit 4');
print $in "v\n";
close $in;
my @o = <$out>;
my @e = <$err>;
waitpid $pid, 0;
print "open3: @o @e status ", $? >> 8, "\n";
$pid = open2(my $r, my $wr, 'tr', 'a-z', 'A-Z');
print $wr "open2 upper\n";
close $wr;
print <$r>;
waitpid $pid, 0;
pipe(my $pr, my $pw) or die "pipe: $!";
my $kid = fork // die "fork: $!";
if ($kid == 0) { close $pr; print $pw "from the child\n"; exit 0 }
close $pw;
print "pipe: ", <$pr>;
waitpid $kid, 0;
open(my $dup, '>&', \*STDOUT) or die "dup: $!";
print $dup "through a duplicate of stdout\n";
close $dup;
open(my $f, '>', 'f.txt') or die "f.txt: $!";
print $f "file\n";
close $f;
open(my $byno, '<&=', fileno(STDIN)) or die "fdopen: $!";
print "a handle on descriptor ", fileno($byno) == fileno(STDIN) ? "0" : "?", "\n";
print `echo backticks`;
system('sh', '-c', 'echo system $((2 + 3))') == 0 or die "system";
socketpair(my $s1, my $s2, AF_UNIX, SOCK_STREAM, PF_UNSPEC) or die "socketpair: $!";
$s1->autoflush(1);
print $s1 "over a socketpair\n";
print "socketpair: ", scalar <$s2>;
my @st = stat('f.txt');
print "size $st[7]\n";
