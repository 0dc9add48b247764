// Routing: single BIC / ABA / correspondents checks, batch-CSV validation with progress and results, the batch
// history and the live routing directories.
import { useState } from 'react';
import { Stack, Tabs } from '@mantine/core';
import { PageTitle } from '../../app/page-title';
import type { BatchJob } from '../../../src-shared/schemas/routing';
import { BatchHistoryTab } from './batch-history-tab';
import { BatchTab } from './batch-tab';
import { CheckTab } from './check-tab';
import { DirectoryTab } from './directory-tab';

type Tab = 'check' | 'batch' | 'history' | 'directory';

export function RoutingPage() {
  const [tab, setTab] = useState<Tab>('check');
  const [job, setJob] = useState<BatchJob | null>(null);
  return (
    <Stack>
      <PageTitle title="Routing" />
      <Tabs value={tab} onChange={(v) => setTab(v === 'batch' || v === 'history' || v === 'directory' ? v : 'check')} keepMounted={false}>
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
          <BatchTab job={job} onJob={setJob} />
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <BatchHistoryTab
            onOpen={(j) => {
              setJob(j);
              setTab('batch');
            }}
            onNew={() => {
              setJob(null);
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
