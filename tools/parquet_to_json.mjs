// Converts one of AI Configurator's measured op tables (a .parquet file) to the JSON array of
// rows tools/kernel_tables.py reads. Needs the hyparquet and hyparquet-compressors npm packages
// (npm install hyparquet hyparquet-compressors).
//
// usage: node parquet_to_json.mjs TABLE.parquet TABLE.json
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import fs from 'fs'

const bytes = fs.readFileSync(process.argv[2])
const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
const rows = await parquetReadObjects({ file, compressors })
const plain = (key, value) => (typeof value === 'bigint' ? Number(value) : value)
fs.writeFileSync(process.argv[3], JSON.stringify(rows, plain))
console.log(`${rows.length} rows`)
