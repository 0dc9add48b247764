// The empty state for sections whose page ships in a later release, so the navigation is already complete.
import { EmptyState, Title } from '@mantine/core';
import { IconClockHour4 } from '@tabler/icons-react';

export function ComingLater({ title }: { title: string }) {
  return (
    <>
      <Title order={2}>{title}</Title>
      <EmptyState
        data-testid="coming-later"
        icon={<IconClockHour4 size={28} />}
        title={`${title} is coming in a later release`}
        description="This section is not available in this version of the console yet."
      />
    </>
  );
}
