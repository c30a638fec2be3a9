# perl's IO::Select on a pipe: select() takes a bit vector indexed by
# descriptor (vec($bits, fileno, 1)), which for a virtual number is 32 MiB
# of bits and then EBADF from select() (an fd_set cannot hold it).
# IO::Select's can_read returns an empty list on an error as on a
# timeout, so the program sees "not ready". Expected to differ under
# UFD_MODE=all.
use strict;
use warnings;
use IO::Select;

pipe(my $r, my $w) or die "pipe: $!";
syswrite($w, "x") == 1 or die "write: $!";
my $sel = IO::Select->new($r);
$! = 0;
my @ready = $sel->can_read(0);
printf "ready: %d%s\n", scalar @ready, $! ? " ($!)" : "";
