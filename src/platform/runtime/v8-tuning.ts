// V8 settings of the service's processes, applied by the entry points (src/server.ts, src/worker.ts)
// right after reading the configuration, before the service serves anything (decision 0227).
import { setFlagsFromString } from 'node:v8';

/**
 * Allocation-site pretenuring off unless V8_PRETENURING=true. V8 watches where objects are allocated
 * and, once most objects of one site survive a scavenge, allocates that site's later objects straight
 * in the old generation. node-postgres parses every result row at the same few sites (the row array,
 * its field strings), and in a busy service some rows always outlive a scavenge (an answer still
 * being written), so V8 pretenured them: every row of every later query then went to the old
 * generation, ~11 KB per portal listing, freed only by mark-compacts (bench/README.md, "Memory").
 * Off, they die young with the rest of a request's garbage. The flag is read at each collection, so
 * setting it once the process runs takes effect from the next one.
 */
export function applyV8Tuning(config: { v8Pretenuring: boolean }): void {
  setFlagsFromString(
    config.v8Pretenuring ? '--allocation-site-pretenuring' : '--no-allocation-site-pretenuring',
  );
}
