// A page's title with the environment it acts in beside it, so a screenshot or a glance at any page says which
// environment the numbers and actions belong to. Pages may adopt it in place of a bare <Title>.
import type { ReactNode } from 'react';
import { Group, Title } from '@mantine/core';
import { EnvBadge } from './environment';

export function PageTitle({ title, actions }: { title: string; actions?: ReactNode }) {
  return (
    <Group justify="space-between" wrap="wrap">
      <Group gap="sm">
        <Title order={2}>{title}</Title>
        <EnvBadge size="md" testId="page-env" />
      </Group>
      {actions}
    </Group>
  );
}
