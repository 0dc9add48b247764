// History's addresses: `#/history?status=failed&country=NG&from=2026-11-01` opens the list filtered,
// `#/history/ver_…` opens one verification in the drawer over it. The page itself (features/history) takes its
// starting filters as a prop, read once at mount, so the route remounts it when the address's filters change from
// outside (a link, Back/forward between filter sets, an address set while History is shown).
import { useMemo, useRef } from 'react';
import { useLocation, useNavigate, useNavigationType, useParams } from 'react-router';
import { HistoryPage } from '../features/history/history-page';
import { VerificationDrawer } from '../features/history/verification-drawer';
import { historyFilterOf, isMenuNavigation, paths } from './routes';
import { useConsole } from './store';

export function HistoryRoute() {
  const location = useLocation();
  const navigate = useNavigate();
  const environment = useConsole((s) => s.environment);
  const id = useParams()['*'] || null;
  const filter = useMemo(() => historyFilterOf(new URLSearchParams(location.search)), [location.search]);
  // The page mirrors its own filter changes into the address with a REPLACE; only a link or Back/forward (PUSH, POP)
  // remounts it with the address's filters, so typing in the search box never remounts the page under the cursor.
  // (The filters used to be handed over by setting the console's store during this render: inside the router's
  // transition that re-rendered the route without end, and an address set while History was shown never showed.)
  // Each such navigation to other filters mounts a new page, even to an address it had shown before (its key counts
  // navigations, not addresses: Back to the filters the page was opened with, after it had mirrored others, must
  // remount it too). Opening or closing a record keeps the filters: the list stays as it is (its page, its scroll)
  // under the drawer.
  const navigationType = useNavigationType();
  // History in the sections menu starts the list over at its first page, even from the list itself (the router
  // replaces the entry then: the menu's navigation is known by its state, isMenuNavigation) — but not Back to that
  // entry (POP), which is closing a record opened from it.
  const mounted = useRef({ location, search: location.search, n: 0 });
  if (mounted.current.location !== location) {
    const fromMenu = navigationType !== 'POP' && isMenuNavigation(location.state);
    const remount = (navigationType !== 'REPLACE' && location.search !== mounted.current.search) || fromMenu;
    mounted.current = { location, search: location.search, n: mounted.current.n + (remount ? 1 : 0) };
  }
  return (
    <>
      <HistoryPage key={mounted.current.n} initialFilter={filter} />
      <VerificationDrawer id={id} environment={environment} onClose={() => void navigate(paths.history(filter))} />
    </>
  );
}
