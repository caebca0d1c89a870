// BENCH_CPU_PROF: V8 CPU profiles of a benchmark's kcs processes, with their lines kept
// (lineProfile.mjs); `npm run profile:summary -- <dir>` reads them (bench/profileSummary.ts).

/** Node options of a process that writes its CPU profile into `dir` when it exits; they go after tsx's `--import`. */
export function cpuProfileArgs(dir: string): string[] {
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', new URL('./lineProfile.mjs', import.meta.url).href];
}
