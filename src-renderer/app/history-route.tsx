// History's addresses: `#/history?status=failed&country=NG&from=2026-11-01` opens the list filtered,
// `#/history/ver_…` opens one verification in the drawer over it. The page itself (features/history) takes its
// starting filters from the store's one-shot hand-over, so the route hands the address's filters over before the
// page mounts and remounts it when the address's filters change (Back/forward between filter sets).
import { useMemo } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
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
  // Before HistoryPage's first render reads it (children render after this body).
  useMemo(() => useConsole.setState({ historyFilter: filter }), [filter]);
  return (
    <>
      <HistoryPage key={location.search} />
      <VerificationDrawer id={id} environment={environment} onClose={() => void navigate(paths.history(filter))} />
    </>
  );
}
