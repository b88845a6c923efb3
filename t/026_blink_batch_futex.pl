# The forced interleavings of t/009 (blink leaves) again, with batch waiters
# asleep on their latches' flag words (blinkam.batch_sleep = futex) instead
# of in WaitLatch.  The cases that raise a waiter's last-resort timeout and
# require it to be woken by its holder (batch_wait_timeouts and
# batch_lost_wakeups stay 0) check wake_slot's futex wake-up; the
# cancelled waiters check that a signal ends the sleep.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use BatchCases;

BatchCases::rerun_with_batch_sleep('futex', '009_blink_batch_cases.pl');
