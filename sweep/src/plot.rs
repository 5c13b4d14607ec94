//! Plots of a sweep's results with plotters: a column against an axis,
//! one line per series, the mean of the repetitions, log axes where the
//! values span two decades or more, PNG or SVG.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use plotters::prelude::*;

use crate::results::{Outputs, Row, Status};
use crate::spec::Spec;

#[derive(clap::Args)]
pub struct PlotArgs {
    pub dir: PathBuf,
    /// The axis (or column) along x.
    #[arg(long)]
    pub x: String,
    /// The column along y (simulated_time_s, wall_s, peak_rss_kb or a
    /// capture).
    #[arg(long)]
    pub y: String,
    /// One line per value of this axis.
    #[arg(long)]
    pub series: Option<String>,
    /// The picture: .png or .svg (default: DIR/Y-vs-X.png).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
}

/// Where a TrueType font may be (Debian's fonts-dejavu-core first).
const FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// Gives plotters a font to draw and measure text with.
fn register_font() -> Result<()> {
    let chosen = std::env::var_os("SMPI_SWEEP_FONT")
        .map(PathBuf::from)
        .or_else(|| FONTS.iter().map(PathBuf::from).find(|p| p.exists()));
    let Some(path) = chosen else {
        bail!(
            "no TrueType font to draw text with: install one (apt-get install fonts-dejavu-core) \
             or name a .ttf file in SMPI_SWEEP_FONT"
        );
    };
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    // plotters keeps the font for the process's life.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
        .map_err(|_| anyhow::anyhow!("{} is not a font plotters can read", path.display()))?;
    Ok(())
}

/// The value of column `name` in `row`, as text.
fn column(spec: &Spec, row: &Row, name: &str) -> Option<String> {
    if let Some(k) = spec.axes.iter().position(|(a, _)| a == name) {
        return Some(row.values[k].clone());
    }
    if let Some(k) = spec.captures.iter().position(|(c, _)| c == name) {
        return Some(row.captures[k].clone());
    }
    let opt = |v: Option<String>| v.unwrap_or_default();
    Some(match name {
        "rep" => row.rep.to_string(),
        "simulated_time_s" => opt(row.simulated_time_s.map(|v| v.to_string())),
        "wall_s" => row.wall_s.to_string(),
        "peak_rss_kb" => opt(row.peak_rss_kb.map(|v| v.to_string())),
        "exit_code" => opt(row.exit_code.map(|v| v.to_string())),
        _ => return None,
    })
}

/// One line: its label and its (x, mean y) points.
type Line = (String, Vec<(f64, f64)>);

/// Whether values from `lo` to `hi` (all positive) span two decades.
fn spans_decades(lo: f64, hi: f64) -> bool {
    lo > 0.0 && hi / lo >= 100.0
}

pub fn plot(a: &PlotArgs) -> Result<()> {
    let out = Outputs::new(&a.dir);
    let spec = crate::load_sweep_spec(&out)?;
    let rows: Vec<Row> = out
        .rows(&spec)?
        .into_iter()
        .filter(|r| r.status == Status::Ok)
        .collect();
    let Some(first) = rows.first() else {
        bail!("{} has no finished point to plot", a.dir.display());
    };
    for name in [&a.x, &a.y].into_iter().chain(&a.series) {
        if column(&spec, first, name).is_none() {
            let mut known: Vec<&str> = spec.axes.iter().map(|(a, _)| a.as_str()).collect();
            known.extend([
                "simulated_time_s",
                "wall_s",
                "peak_rss_kb",
                "exit_code",
                "rep",
            ]);
            known.extend(spec.captures.iter().map(|(c, _)| c.as_str()));
            bail!("no column '{name}' (the columns are: {})", known.join(", "));
        }
    }
    // x: numbers if every value is one, else the axis's values in order.
    let xs: Vec<String> = rows.iter().filter_map(|r| column(&spec, r, &a.x)).collect();
    let numeric = xs.iter().all(|v| v.parse::<f64>().is_ok());
    let categories: Vec<String> = match spec.axes.iter().find(|(n, _)| n == &a.x) {
        Some((_, values)) if !numeric => values.clone(),
        _ => Vec::new(),
    };
    let x_of = |v: &str| -> Option<f64> {
        if numeric {
            v.parse().ok()
        } else {
            categories.iter().position(|c| c == v).map(|i| i as f64)
        }
    };
    // Lines: by the series axis and every other axis that varies.
    let varying: Vec<usize> = spec
        .axes
        .iter()
        .enumerate()
        .filter(|(_, (n, vals))| n != &a.x && (Some(n) == a.series.as_ref() || vals.len() > 1))
        .map(|(k, _)| k)
        .collect();
    let mut groups: BTreeMap<(Vec<String>, String), Vec<f64>> = BTreeMap::new();
    for r in &rows {
        let (Some(x), Some(y)) = (column(&spec, r, &a.x), column(&spec, r, &a.y)) else {
            continue;
        };
        let Ok(y) = y.parse::<f64>() else { continue };
        let key: Vec<String> = varying.iter().map(|&k| r.values[k].clone()).collect();
        groups.entry((key, x)).or_default().push(y);
    }
    let mut lines: BTreeMap<Vec<String>, Vec<(f64, f64)>> = BTreeMap::new();
    for ((key, x), ys) in groups {
        if let Some(x) = x_of(&x) {
            let mean = ys.iter().sum::<f64>() / ys.len() as f64;
            lines.entry(key).or_default().push((x, mean));
        }
    }
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|(key, mut pts)| {
            pts.sort_by(|p, q| p.0.total_cmp(&q.0));
            let label = varying
                .iter()
                .zip(&key)
                .map(|(&k, v)| format!("{}={v}", spec.axes[k].0))
                .collect::<Vec<_>>()
                .join(" ");
            (label, pts)
        })
        .collect();
    if lines.iter().all(|(_, p)| p.is_empty()) {
        bail!("no row has a number in column '{}'", a.y);
    }
    let output = a
        .output
        .clone()
        .unwrap_or_else(|| a.dir.join(format!("{}-vs-{}.png", a.y, a.x)));
    register_font()?;
    let chart = Chart {
        x: &a.x,
        y: &a.y,
        lines: &lines,
        categories: &categories,
    };
    match output.extension().and_then(|e| e.to_str()) {
        Some("svg") => chart.draw(SVGBackend::new(&output, (900, 600)).into_drawing_area()),
        Some("png") => chart.draw(BitMapBackend::new(&output, (900, 600)).into_drawing_area()),
        _ => bail!("{}: the picture is a .png or a .svg", output.display()),
    }
    .with_context(|| format!("drawing {}", output.display()))?;
    println!("{}", output.display());
    Ok(())
}

struct Chart<'a> {
    x: &'a str,
    y: &'a str,
    lines: &'a [Line],
    /// The names of x's positions, when x is not numeric.
    categories: &'a [String],
}

impl Chart<'_> {
    fn draw<B: DrawingBackend>(&self, root: DrawingArea<B, plotters::coord::Shift>) -> Result<()>
    where
        B::ErrorType: 'static,
    {
        let pts = || self.lines.iter().flat_map(|(_, p)| p.iter());
        let (x0, x1) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        let (y0, y1) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
        let pad = |lo: f64, hi: f64| {
            if hi > lo {
                (lo - (hi - lo) * 0.05, hi + (hi - lo) * 0.05)
            } else {
                (lo - 0.5 - lo.abs() * 0.1, hi + 0.5 + hi.abs() * 0.1)
            }
        };
        let log_x = self.categories.is_empty() && spans_decades(x0, x1);
        let log_y = spans_decades(y0, y1);
        root.fill(&WHITE)?;
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(format!("{} against {}", self.y, self.x), ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80);
        let categories = self.categories;
        let x_label = move |v: &f64| -> String {
            if categories.is_empty() {
                format!("{v}")
            } else {
                let i = v.round();
                if (v - i).abs() < 1e-9 && i >= 0.0 {
                    categories.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            }
        };
        macro_rules! finish {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc(self.x)
                    .y_desc(self.y)
                    .x_label_formatter(&x_label)
                    .x_labels(if categories.is_empty() {
                        10
                    } else {
                        categories.len()
                    })
                    .draw()?;
                for (i, (label, p)) in self.lines.iter().enumerate() {
                    let color = Palette99::pick(i).to_rgba();
                    chart
                        .draw_series(LineSeries::new(p.iter().copied(), color.stroke_width(2)))?
                        .label(if label.is_empty() {
                            self.y.to_string()
                        } else {
                            label.clone()
                        })
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                        });
                    chart.draw_series(p.iter().map(|&q| Circle::new(q, 3, color.filled())))?;
                }
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::UpperLeft)
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .draw()?;
            }};
        }
        let (xa, xb) = if log_x {
            (x0 / 1.2, x1 * 1.2)
        } else {
            pad(x0, x1)
        };
        // Room above the lines for the legend (upper left).
        let (ya, yb) = if log_y {
            (y0 / 1.2, y1 * 4.0)
        } else {
            let (a, b) = pad(y0, y1);
            (a, b + (b - a) * 0.25)
        };
        match (log_x, log_y) {
            (false, false) => finish!(builder.build_cartesian_2d(xa..xb, ya..yb)?),
            (true, false) => finish!(builder.build_cartesian_2d((xa..xb).log_scale(), ya..yb)?),
            (false, true) => finish!(builder.build_cartesian_2d(xa..xb, (ya..yb).log_scale())?),
            (true, true) => {
                finish!(builder.build_cartesian_2d((xa..xb).log_scale(), (ya..yb).log_scale())?)
            }
        }
        root.present()?;
        Ok(())
    }
}
