'use client'

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { formatDay } from '../_lib/format'

interface Point {
  start: Date
  grantsCreated: number
  rotations: number
}

const GRANTS_COLOUR = '#1f5fbf'
const ROTATIONS_COLOUR = '#b45309'

/** Grants requested and tokens rotated per UTC day, as bars; the same numbers as a table for screen readers. */
export function ActivityChart({ series }: { series: Point[] }) {
  const data = series.map((p) => ({ day: formatDay(p.start), Grants: p.grantsCreated, Rotations: p.rotations }))
  const total = series.reduce((n, p) => n + p.grantsCreated + p.rotations, 0)
  return (
    <figure className="chart">
      <div className="chart-box" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} accessibilityLayer={false}>
            <CartesianGrid stroke="#e3e7ed" vertical={false} />
            <XAxis dataKey="day" tick={{ fill: '#4a5463', fontSize: 12 }} interval="preserveStartEnd" minTickGap={16} />
            <YAxis allowDecimals={false} tick={{ fill: '#4a5463', fontSize: 12 }} />
            <Tooltip cursor={{ fill: '#eef1f5' }} />
            <Legend wrapperStyle={{ fontSize: 13, color: '#14181f' }} />
            <Bar dataKey="Grants" fill={GRANTS_COLOUR} radius={[3, 3, 0, 0]} />
            <Bar dataKey="Rotations" fill={ROTATIONS_COLOUR} radius={[3, 3, 0, 0]} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption>
        {total === 0
          ? 'No grant was requested and no token rotated in this period.'
          : 'Grants requested (blue) and token rotations (orange), per UTC day.'}
      </figcaption>
      <details>
        <summary>Show the numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Grants</th>
              <th scope="col">Rotations</th>
            </tr>
          </thead>
          <tbody>
            {data.map((d) => (
              <tr key={d.day}>
                <th scope="row">{d.day}</th>
                <td>{d.Grants}</td>
                <td>{d.Rotations}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  )
}
