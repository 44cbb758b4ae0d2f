// Placeholder until the feature lands.
export default function BrandsPage() {
  return <main><h1>BrandsPage</h1></main>;
}
