# Eight threads (std::thread::spawn) hammer the same traced functions at
# the same time, released together by a Barrier, while main calls its own
# traced function: exact counts in all and per thread (`--by thread`).
# 12,500 + k leaf calls for thread k: 100,028 leaf calls per run, about
# 4 s under rtrace on 2 CPUs; 100,000 per thread would take some 30 s a
# run, too long for a suite that runs this 3 times in 2 builds.  Repeated
# because a lost or doubled hit between threads is a race.
fixture = "threads"
args = ["12500", "1000"]
patterns = ["threads::*"]
repeat = 3
# Thread creation stops main inside its call: the stop cost is measured.
stop_cost = True
