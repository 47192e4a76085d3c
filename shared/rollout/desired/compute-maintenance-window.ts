// Maintenance windows in a time zone, with the time passed in: whether one is open at an instant and when the next
// one starts. Intl does the zone arithmetic (daylight saving included); nothing here reads the clock.
import { weekdays, type MaintenanceWindow, type Weekday } from '#shared/api/management/v1alpha1/cluster-rollout.ts';

type LocalTime = { year: number; month: number; day: number; weekday: Weekday; minutes: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `timeZone` is a zone Intl knows (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

function partsAt(instant: number, timeZone: string): LocalTime & { second: number } {
  const parts: Record<string, string> = {};
  for (const p of formatterOf(timeZone).formatToParts(new Date(instant))) parts[p.type] = p.value;
  return {
    year: Number(parts['year']),
    month: Number(parts['month']),
    day: Number(parts['day']),
    weekday: parts['weekday'] as Weekday,
    minutes: Number(parts['hour']) * 60 + Number(parts['minute']),
    second: Number(parts['second']),
  };
}

/** The zone's offset from UTC at an instant, in ms (local wall clock minus UTC). */
function offsetAt(instant: number, timeZone: string): number {
  const p = partsAt(instant, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, Math.floor(p.minutes / 60), p.minutes % 60, p.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant a local wall-clock time happens in a zone (a time skipped by a DST jump moves forward with it). */
function instantOf(year: number, month: number, day: number, minutes: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day, Math.floor(minutes / 60), minutes % 60);
  const first = wall - offsetAt(wall, timeZone);
  const second = wall - offsetAt(first, timeZone);
  const shows = (instant: number) => {
    const p = partsAt(instant, timeZone);
    return p.day === day && p.minutes === minutes;
  };
  if (shows(second)) return second;
  if (shows(first)) return first;
  // NOTE: the wall time falls in a daylight-saving gap: the later reading moves it forward by the jump.
  return Math.max(first, second);
}

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const weekdayOfDate = (year: number, month: number, day: number): Weekday =>
  weekdays[(new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7] as Weekday;

const previousWeekday = (day: Weekday): Weekday => weekdays[(weekdays.indexOf(day) + 6) % 7] as Weekday;

/**
 * Whether changes may start at `now` (epoch ms). A window whose `end` is at or before its `start` runs over
 * midnight and belongs to the day it starts.
 *
 * @example
 * isWindowOpen({ days: ['Sat'], start: '22:00', end: '04:00', timeZone: 'Europe/Berlin' }, Date.parse('2026-11-29T01:30:00Z')); // true (Sun 02:30 local)
 */
export function isWindowOpen(window: MaintenanceWindow, now: number): boolean {
  const local = partsAt(now, window.timeZone ?? 'UTC');
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const days = new Set<Weekday>(window.days);
  if (end > start) return days.has(local.weekday) && local.minutes >= start && local.minutes < end;
  return (
    (days.has(local.weekday) && local.minutes >= start) ||
    (days.has(previousWeekday(local.weekday)) && local.minutes < end)
  );
}

/**
 * The next instant after `now` at which the window opens (within the next eight days, which always holds one).
 *
 * @example
 * computeNextWindowStart({ days: ['Mon'], start: '09:00', end: '17:00', timeZone: 'UTC' }, Date.parse('2026-11-27T12:00:00Z')); // Date.parse('2026-11-30T09:00:00Z')
 */
export function computeNextWindowStart(window: MaintenanceWindow, now: number): number {
  const timeZone = window.timeZone ?? 'UTC';
  const today = partsAt(now, timeZone);
  const start = minutesOf(window.start);
  const days = new Set<Weekday>(window.days);
  for (let offset = 0; offset <= 8; offset++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offset));
    const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!days.has(weekdayOfDate(year, month, day))) continue;
    const at = instantOf(year, month, day, start, timeZone);
    if (at > now) return at;
  }
  throw new RangeError(`no maintenance window start found after ${new Date(now).toISOString()}`);
}
