// Loaded with `node --import` by `pnpm bench cli`: at exit, writes the process's CPU time (user +
// system, in µs) as the last line of stderr, so the benchmark can compare CPU as well as wall time
// (wall time on a busy machine measures the machine as much as the program).
process.on('exit', () => {
  const { user, system } = process.cpuUsage()
  process.stderr.write(`\n__cpu_us ${user + system}\n`)
})
