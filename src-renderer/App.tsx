// The console root: theme and notifications, the start sequence (session, app:info, first-run setup) and the
// readiness marker on #root that e2e tests wait for.
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/charts/styles.css';
import '@mantine/spotlight/styles.css';
import 'mantine-datatable/styles.layer.css';
import { useCallback, useEffect, useState } from 'react';
import { HashRouter } from 'react-router';
import { Center, Loader, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import type { AppInfo } from '../src-shared/channels';
import { ConsoleError, SessionExpiredError, SignInRequiredError, call, onSessionExpired, startSession } from './client/bridge';
import { SignInPage } from './app/sign-in-page';
import { ConsoleShell } from './app/console-shell';
import { FullPageMessage } from './app/full-page-message';
import { useConsole } from './app/store';
import { useLiveConnection } from './app/live-store';
import { cssVariablesResolver, themeFor } from './app/theme';
import { SetupScreen } from './features/setup/setup-screen';

type Phase = { kind: 'loading' } | { kind: 'expired' } | { kind: 'sign-in'; notice: string | null } | { kind: 'error'; message: string; hint?: string } | { kind: 'ready'; info: AppInfo };

const EXPIRED_MESSAGE = 'This console link was already used or has expired. Run `vconsole serve` again or use the link it printed.';

export function App() {
  const environment = useConsole((s) => s.environment);
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  useLiveConnection(phase.kind === 'ready' && !phase.info.needsSetup);

  const load = useCallback(async () => {
    try {
      await startSession();
      const info = await call('app:info', {});
      setPhase({ kind: 'ready', info });
    } catch (e) {
      if (e instanceof SessionExpiredError) setPhase({ kind: 'expired' });
      else if (e instanceof SignInRequiredError) setPhase({ kind: 'sign-in', notice: null });
      else if (e instanceof ConsoleError) setPhase({ kind: 'error', message: e.message, ...(e.hint ? { hint: e.hint } : {}) });
      else setPhase({ kind: 'error', message: 'The console could not start.', hint: 'Check that the service is running, then reload.' });
    }
  }, []);

  useEffect(() => {
    void load();
    return onSessionExpired((reason) =>
      setPhase(
        reason === 'expired'
          ? { kind: 'expired' }
          : { kind: 'sign-in', notice: reason === 'ended' ? 'Your session has ended. Sign in again.' : 'You have signed out.' },
      ),
    );
  }, [load]);

  // Set after the screen for this phase has been committed, so "loaded" means something is on screen.
  useEffect(() => {
    const root = document.getElementById('root');
    if (!root) return;
    root.dataset['appState'] = phase.kind === 'loading' ? 'loading' : phase.kind === 'ready' ? 'loaded' : phase.kind === 'sign-in' ? 'sign-in' : 'error';
  }, [phase]);

  return (
    <MantineProvider theme={themeFor(environment)} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <Notifications position="top-right" />
      {phase.kind === 'loading' && (
        <Center h="100vh">
          <Loader />
        </Center>
      )}
      {phase.kind === 'sign-in' && <SignInPage notice={phase.notice} onSignedIn={() => void load()} />}
      {phase.kind === 'expired' && <FullPageMessage title="Console link expired" message={EXPIRED_MESSAGE} />}
      {phase.kind === 'error' && (
        <FullPageMessage title="The console could not start" message={phase.message} {...(phase.hint ? { hint: phase.hint } : {})} onRetry={() => void load()} />
      )}
      {/* Hash history: every screen has an address (app/routes.ts) that works under /console/ and app://console/
          alike. The router starts after the session, once the one-time `#token=` has left the address bar. */}
      {phase.kind === 'ready' && (
        <HashRouter>{phase.info.needsSetup ? <SetupScreen onDone={() => void load()} /> : <ConsoleShell info={phase.info} />}</HashRouter>
      )}
    </MantineProvider>
  );
}
