// Routing: single BIC / ABA / correspondents checks, batch-CSV validation with progress and results, the batch
// history and the live routing directories. The tab is the address's (`#/routing/directory`); a batch job has its
// own (`#/routing/batch/job_…`), so a finished job's results can be reopened, linked and reloaded.
import { useCallback, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Stack, Tabs } from '@mantine/core';
import { call } from '../../client/bridge';
import { notifyError } from '../../app/notify';
import { isRoutingTab, paths, type RoutingTab } from '../../app/routes';
import { PageTitle } from '../../app/page-title';
import type { BatchJob } from '../../../src-shared/schemas/routing';
import { BatchHistoryTab } from './batch-history-tab';
import { BatchTab } from './batch-tab';
import { CheckTab } from './check-tab';
import { DirectoryTab } from './directory-tab';

export function RoutingPage() {
  const [first, jobId] = (useParams()['*'] ?? '').split('/');
  const navigate = useNavigate();
  const tab: RoutingTab = isRoutingTab(first) ? first : 'check';
  const [job, setJobState] = useState<BatchJob | null>(null);
  // The Batch tab returns to the job last shown, so a running batch survives a look at another tab.
  const setTab = (t: RoutingTab) => void navigate(t === 'batch' && job ? paths.batchJob(job.id) : paths.routing(t));
  // A job started or opened here gets its address; leaving it ("New batch") goes back to the plain tab.
  const setJob = useCallback(
    (j: BatchJob | null) => {
      setJobState(j);
      if (j && j.id !== jobId) void navigate(paths.batchJob(j.id), { replace: jobId === undefined });
      if (!j && jobId) void navigate(paths.routing('batch'));
    },
    [jobId, navigate],
  );
  // Opened from an address (reload, a link, Back): fetch the job it names.
  useEffect(() => {
    if (tab !== 'batch' || !jobId || job?.id === jobId) return;
    let live = true;
    call('batch:progress', { id: jobId })
      .then((j) => live && setJobState(j))
      .catch((e: unknown) => notifyError(e, 'Could not open that batch job'));
    return () => {
      live = false;
    };
  }, [tab, jobId, job?.id]);
  const shownJob = jobId && job?.id === jobId ? job : null;
  return (
    <Stack>
      <PageTitle title="Routing" />
      <Tabs value={tab} onChange={(v) => setTab(isRoutingTab(v) ? v : 'check')} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="check" data-testid="routing-tab-check">
            Check
          </Tabs.Tab>
          <Tabs.Tab value="batch" data-testid="routing-tab-batch">
            Batch CSV
          </Tabs.Tab>
          <Tabs.Tab value="history" data-testid="routing-tab-history">
            History
          </Tabs.Tab>
          <Tabs.Tab value="directory" data-testid="routing-tab-directory">
            Directory
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="check" pt="md">
          <CheckTab />
        </Tabs.Panel>
        <Tabs.Panel value="batch" pt="md">
          <BatchTab job={shownJob} onJob={setJob} />
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <BatchHistoryTab
            onOpen={(j) => {
              setJobState(j);
              void navigate(paths.batchJob(j.id));
            }}
            onNew={() => {
              setJobState(null);
              setTab('batch');
            }}
          />
        </Tabs.Panel>
        <Tabs.Panel value="directory" pt="md">
          <DirectoryTab />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
