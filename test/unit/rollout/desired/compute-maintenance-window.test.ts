import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MaintenanceWindow } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import {
  computeNextWindowStart,
  isKnownTimeZone,
  isWindowOpen,
} from '#shared/rollout/desired/compute-maintenance-window.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const weekdayOffice: MaintenanceWindow = deepFreeze({
  days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
  start: '09:00',
  end: '17:00',
  timeZone: 'UTC',
});
// NOTE: Saturday 22:00 to Sunday 04:00 Berlin time: the window runs over midnight and belongs to Saturday.
const berlinNight: MaintenanceWindow = deepFreeze({
  days: ['Sat'],
  start: '22:00',
  end: '04:00',
  timeZone: 'Europe/Berlin',
});
const newYork: MaintenanceWindow = deepFreeze({
  days: ['Sun'],
  start: '02:30',
  end: '05:00',
  timeZone: 'America/New_York',
});

describe('isWindowOpen', () => {
  const cases: [string, MaintenanceWindow, string, boolean][] = [
    ['is open on a weekday inside the hours', weekdayOffice, '2026-11-27T12:00:00Z', true],
    ['is closed on a weekday before the start', weekdayOffice, '2026-11-27T08:59:59Z', false],
    ['is closed at the end minute (end is exclusive)', weekdayOffice, '2026-11-27T17:00:00Z', false],
    ['is closed on a day not listed', weekdayOffice, '2026-11-28T12:00:00Z', false],
    ['is open on Saturday 23:00 Berlin (22:00 UTC in winter)', berlinNight, '2026-11-28T22:00:00Z', true],
    ['is open on Sunday 03:59 Berlin: the window started on Saturday', berlinNight, '2026-11-29T02:59:00Z', true],
    ['is closed on Sunday 04:00 Berlin', berlinNight, '2026-11-29T03:00:00Z', false],
    ['is closed on Saturday 21:59 Berlin', berlinNight, '2026-11-28T20:59:00Z', false],
    [
      'reads the zone, not UTC: Saturday 21:30 UTC is 23:30 Berlin in summer',
      berlinNight,
      '2026-07-04T21:30:00Z',
      true,
    ],
  ];
  for (const [name, window, at, open] of cases) {
    test(name, () => assert.equal(isWindowOpen(window, Date.parse(at)), open));
  }
});

describe('computeNextWindowStart', () => {
  const cases: [string, MaintenanceWindow, string, string][] = [
    [
      'is later today when the window has not opened yet',
      weekdayOffice,
      '2026-11-27T06:00:00Z',
      '2026-11-27T09:00:00.000Z',
    ],
    ['skips the weekend from a Friday afternoon', weekdayOffice, '2026-11-27T18:00:00Z', '2026-11-30T09:00:00.000Z'],
    [
      'is next Saturday 22:00 Berlin in winter (21:00 UTC)',
      berlinNight,
      '2026-11-27T12:00:00Z',
      '2026-11-28T21:00:00.000Z',
    ],
    [
      'is next Saturday 22:00 Berlin in summer (20:00 UTC)',
      berlinNight,
      '2026-07-01T12:00:00Z',
      '2026-07-04T20:00:00.000Z',
    ],
    ['is a week later while the window is open', weekdayOffice, '2026-11-27T12:00:00Z', '2026-11-30T09:00:00.000Z'],
    // NOTE: 2027-03-14 02:30 does not exist in New York (clocks jump from 02:00 to 03:00): the start moves forward.
    ['moves a start skipped by a DST jump forward', newYork, '2027-03-13T12:00:00Z', '2027-03-14T07:30:00.000Z'],
  ];
  for (const [name, window, at, expected] of cases) {
    test(name, () => assert.equal(new Date(computeNextWindowStart(window, Date.parse(at))).toISOString(), expected));
  }
});

test('isKnownTimeZone accepts IANA names and refuses others', () => {
  assert.equal(isKnownTimeZone('Europe/Berlin'), true);
  assert.equal(isKnownTimeZone('UTC'), true);
  assert.equal(isKnownTimeZone('Mars/Olympus'), false);
});
