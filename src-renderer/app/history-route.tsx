// History's addresses: `#/history?status=failed&country=NG&from=2026-11-01` opens the list filtered,
// `#/history/ver_…` opens one verification in the drawer over it. The page itself (features/history) takes its
// starting filters from the store's one-shot hand-over, so the route hands the address's filters over before the
// page mounts and remounts it when the address's filters change (Back/forward between filter sets).
import { useMemo, useRef } from 'react';
import { useLocation, useNavigate, useNavigationType, useParams } from 'react-router';
import { HistoryPage } from '../features/history/history-page';
import { VerificationDrawer } from '../features/history/verification-drawer';
import { historyFilterOf, paths } from './routes';
import { useConsole } from './store';

export function HistoryRoute() {
  const location = useLocation();
  const navigate = useNavigate();
  const environment = useConsole((s) => s.environment);
  const id = useParams()['*'] || null;
  const filter = useMemo(() => historyFilterOf(new URLSearchParams(location.search)), [location.search]);
  // The page mirrors its own filter changes into the address with a REPLACE; only a link or Back/forward (PUSH, POP)
  // hands filters over and remounts it, so typing in the search box never remounts the page under the cursor.
  const navigationType = useNavigationType();
  const mounted = useRef(location.search);
  if (navigationType !== 'REPLACE') mounted.current = location.search;
  // Before HistoryPage's first render reads it (children render after this body).
  useMemo(() => {
    if (navigationType !== 'REPLACE') useConsole.setState({ historyFilter: filter });
  }, [filter, navigationType]);
  return (
    <>
      <HistoryPage key={mounted.current} />
      <VerificationDrawer id={id} environment={environment} onClose={() => void navigate(paths.history(filter))} />
    </>
  );
}
