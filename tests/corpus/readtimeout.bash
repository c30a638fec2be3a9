# bash's read -t 0 -u FD asks whether input is waiting on FD: bash
# answers with select() and FD_SET (input_avail), and fortified glibc
# aborts for a descriptor past FD_SETSIZE. (read -t with a positive
# timeout uses a timer, and works.) Expected to differ under UFD_MODE=all.
# Run in an empty directory.
printf 'line\n' > input
exec {in}< input
read -t 5 -u "$in" v; echo "read -t 5: status $?, '$v'"
read -t 0 -u "$in"; echo "read -t 0: status $?"
