// The "demo data" mark in the header (issue 23 §2): while the sandbox holds demo records, every page says so in one
// small badge, which links to Settings, where they are removed. Looks at start and when checks change, paced (it counts
// the demo records: a console open while checks flow asked 14 times a second).
import { useEffect, useState } from 'react';
import { Badge, Tooltip } from '@mantine/core';
import { Link } from 'react-router';
import { call } from '../client/bridge';
import { usePacedLiveVersion } from './live-store';
import { paths } from './routes';

export function DemoMark() {
  const [present, setPresent] = useState(false);
  const { version, track } = usePacedLiveVersion('verifications');
  useEffect(() => {
    let current = true;
    track(call('demo:status', {}))
      .then((s) => current && setPresent(s.present))
      .catch(() => {
        // Advisory: a failed look leaves the mark as it was.
      });
    return () => {
      current = false;
    };
  }, [version, track]);
  if (!present) return null;
  return (
    <Tooltip label="The sandbox holds demo data; remove it in Settings" withArrow>
      <Badge component={Link} to={paths.section('settings')} color="grape" variant="light" style={{ cursor: 'pointer', flexShrink: 0 }} data-testid="demo-mark">
        demo data
      </Badge>
    </Tooltip>
  );
}
