// Preload (node --import) for the service child: runs its clock VC_TEST_CLOCK_OFFSET_MS ahead, so a restart can
// start "later" than the crash (leases of the killed process expired, the sync guard due) without real waiting.
const offset = Number(process.env.VC_TEST_CLOCK_OFFSET_MS ?? '0');
if (Number.isFinite(offset) && offset !== 0) {
  const realNow = Date.now;
  Date.now = () => realNow() + offset;
}
